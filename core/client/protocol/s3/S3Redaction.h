#pragma once

#include "S3Credentials.h"
#include "S3Request.h"

#include <QString>

namespace multilane {

// Makes anything that describes a request safe to print or log: the signature, the session
// token and the secret never appear; the access key id is cut to its first four characters.
namespace S3Redaction {

// "AKIA…" (the first four characters), enough to tell two keys apart in a message.
QString maskedAccessKeyId(const QString &accessKeyId);
// One header's value as it may be shown: Authorization keeps its scope and signed headers only.
QByteArray shownHeaderValue(const QByteArray &name, const QByteArray &value);
// "PUT http://gw:7480/bucket/key?partNumber=1&uploadId=… (headers: …)", secrets removed.
QString describe(const S3Request &request);
// Replaces every occurrence of the secret and the token in free text (a server's echo, a log).
QString scrub(const QString &text, const S3Credentials &credentials);

} // namespace S3Redaction
} // namespace multilane
