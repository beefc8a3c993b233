#pragma once

#include "Endpoint.h"
#include "LinkEstimate.h"
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
    std::shared_ptr<const UploadProtocol> protocol; // empty: ours (protocol v1)
};

} // namespace multilane
