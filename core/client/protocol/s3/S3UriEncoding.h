#pragma once

#include <QByteArray>
#include <QString>

namespace multilane {

// SigV4's URI encoding: every byte but A-Z a-z 0-9 - _ . ~ becomes %XX (uppercase hex). S3 signs
// the path as sent, encoded once (other AWS services encode it twice), so the path we send is
// exactly this encoding and the signature covers the same bytes.
namespace S3UriEncoding {

QByteArray encode(const QByteArray &utf8, bool keepSlashes);
// An object key as a URL path: each '/'-separated segment encoded, the '/' kept.
inline QByteArray encodeKey(const QString &key)
{
    return encode(key.toUtf8(), true);
}
inline QByteArray encodeQueryValue(const QString &value)
{
    return encode(value.toUtf8(), false);
}

} // namespace S3UriEncoding
} // namespace multilane
