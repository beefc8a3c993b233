#pragma once

#include "Endpoint.h"
#include "LinkEstimate.h"
#include "S3Credentials.h"
#include "S3TargetSpec.h"
#include "TransferOptions.h"

#include <QList>
#include <QString>
#include <memory>
#include <optional>

namespace multilane {

class UploadProtocol;

// What one batch of files is to be sent with, the same whichever front end asks: the command
// line fills it from its options, the window from its settings, a resume from the journal.
struct UploadPlan {
    QList<Endpoint> endpoints;
    // transfer.connections is the count to use when connectionsFixed, else the ceiling the
    // tuner may climb to (the run lowers it to what the endpoints allow).
    TransferOptions transfer;
    bool connectionsFixed = false;
    bool autoChunkSize = true; // measured from the link; false: transfer.chunkSize as given
    QString destination;       // the destination prefix the user gave, kept with the batch
    // An endpoint that does not answer the check before the transfer: a script wants to know at
    // once (Exclude: it is left out, and with none left nothing is sent); the window waits for
    // it like for one that stops answering later.
    enum class Unreachable { Exclude, Wait };
    Unreachable unreachableAtStart = Unreachable::Exclude;
    // A recent measurement of these endpoints: no probe before the transfer.
    std::optional<LinkEstimate> knownLink;
    // Set: the files go to this S3 bucket and the endpoints are its gateways (none: AWS's for
    // the region); the run builds the protocol for it. Empty: the endpoints are receivers.
    S3TargetSpec s3;
    // Keys the front end holds for the S3 target (the window's keyring); none: found the way
    // aws-cli finds them when the run starts. Never journaled.
    std::optional<S3Credentials> s3Credentials;
    // Empty: built by the run from the target (ours, protocol v1, or S3). Tests may hand one in.
    std::shared_ptr<const UploadProtocol> protocol;
};

} // namespace multilane
