#pragma once

#include <QByteArray>
#include <QList>

namespace multilane {

// ETags as S3 computes them for uploads without server-side encryption, so an object can be
// checked against the bytes that were sent: a PutObject's is the MD5 in hex, a multipart
// upload's the MD5 of the parts' binary MD5s followed by "-N".
namespace S3Etag {

QByteArray ofSinglePut(const QByteArray &md5);             // md5: 16 binary bytes
QByteArray ofMultipart(const QList<QByteArray> &partMd5s); // each 16 binary bytes, in part order
// Without quotes or a weak "W/" mark, lowercase: the form two ETags are compared in.
QByteArray normalized(const QByteArray &etag);
QByteArray quoted(const QByteArray &etag); // "\"…\"", as CompleteMultipartUpload lists them
inline bool equal(const QByteArray &a, const QByteArray &b)
{
    return !normalized(a).isEmpty() && normalized(a) == normalized(b);
}

} // namespace S3Etag
} // namespace multilane
