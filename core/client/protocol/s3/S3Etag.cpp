#include "S3Etag.h"

#include "Md5Digest.h"

namespace multilane::S3Etag {

QByteArray ofSinglePut(const QByteArray &md5)
{
    return md5.toHex();
}

QByteArray ofMultipart(const QList<QByteArray> &partMd5s)
{
    Md5Digest digest;
    for (const QByteArray &md5 : partMd5s)
        digest.addData(md5);
    return digest.result().toHex() + '-' + QByteArray::number(partMd5s.size());
}

QByteArray normalized(const QByteArray &etag)
{
    QByteArray text = etag.trimmed();
    if (text.startsWith("W/"))
        text = text.mid(2);
    if (text.size() >= 2 && text.startsWith('"') && text.endsWith('"'))
        text = text.mid(1, text.size() - 2);
    // Some servers send the quotes XML-escaped inside an already-decoded value.
    if (text.startsWith("&quot;") && text.endsWith("&quot;") && text.size() >= 12)
        text = text.mid(6, text.size() - 12);
    return text.toLower();
}

QByteArray quoted(const QByteArray &etag)
{
    return '"' + normalized(etag) + '"';
}

} // namespace multilane::S3Etag
