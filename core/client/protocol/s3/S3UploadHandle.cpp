#include "S3UploadHandle.h"

namespace multilane {

static constexpr QChar Separator = QLatin1Char('|');

QString S3UploadHandle::encode(const QString &defaultKey) const
{
    return key == defaultKey ? uploadId : uploadId + Separator + key;
}

S3UploadHandle S3UploadHandle::decode(const QString &handle, const QString &defaultKey)
{
    const qsizetype separator = handle.indexOf(Separator);
    if (separator < 0)
        return {handle, defaultKey};
    return {handle.left(separator), handle.mid(separator + 1)};
}

} // namespace multilane
