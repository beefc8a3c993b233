#pragma once

#include <QString>

namespace multilane {

// The keys a request is signed with. Never printed whole: use S3Redaction for anything shown.
struct S3Credentials {
    QString accessKeyId;
    QString secretAccessKey;
    QString sessionToken; // temporary credentials only; sent as x-amz-security-token
    QString source;       // where they came from, for messages: "environment", "profile 'x' in …"

    bool isComplete() const { return !accessKeyId.isEmpty() && !secretAccessKey.isEmpty(); }
};

} // namespace multilane
