#include "UploadId.h"

#include "Sha256.h"

namespace multilane::UploadId {

QByteArray forKey(const QString &path, qint64 size, qint64 mtime)
{
    Sha256 hash;
    hash.addData(QByteArrayLiteral("v1\n") + path.toUtf8() + '\n' + QByteArray::number(size) + '\n' +
                 QByteArray::number(mtime));
    return hash.hexDigest().left(Length);
}

bool isValid(const QByteArray &id)
{
    if (id.size() != Length)
        return false;
    for (const char c : id) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

} // namespace multilane::UploadId
