#include "DiskSpace.h"

#include <QFile>
#include <sys/statvfs.h>

namespace multilane::DiskSpace {

std::optional<qint64> availableBytes(const QString &folder)
{
    return of(folder).freeBytes;
}

StorageSpace of(const QString &folder)
{
    struct statvfs info {};
    if (::statvfs(QFile::encodeName(folder).constData(), &info) != 0)
        return {};
    // f_bavail, not f_bfree: the blocks reserved for root are not ours to fill.
    return {qint64(info.f_bavail) * qint64(info.f_frsize), qint64(info.f_blocks) * qint64(info.f_frsize)};
}

} // namespace multilane::DiskSpace
