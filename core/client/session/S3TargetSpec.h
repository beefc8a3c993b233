#pragma once

#include "S3Target.h"

#include <QString>
#include <optional>

namespace multilane {

// An S3 bucket as an upload plan names it: what the user typed (--s3, --region, --addressing,
// --profile, or the window's S3 settings), never keys. The run turns it into the protocol
// (S3RunSetup) and the journal keeps it, so a resume goes to the same place with the same profile.
struct S3TargetSpec {
    QString url;    // s3://bucket/prefix/; empty: no S3 target (the plan's endpoints are receivers)
    QString region; // empty: what the user's AWS configuration says, else us-east-1
    S3Addressing addressing = S3Addressing::Auto;
    QString profile; // a profile of ~/.aws/credentials or ~/.aws/config; empty: aws-cli's order

    bool isSet() const { return !url.isEmpty(); }
    bool operator==(const S3TargetSpec &other) const = default;
};

// "auto", "path", "virtual": the command line's and aws-cli's names (s3.addressing_style).
QString s3AddressingName(S3Addressing addressing);
std::optional<S3Addressing> s3AddressingFromName(const QString &name);

} // namespace multilane
