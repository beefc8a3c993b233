#include "DiskSpace.h"

#include <QFile>
#include <sys/statvfs.h>

namespace multilane::DiskSpace {

std::optional<qint64> availableBytes(const QString &folder)
{
    struct statvfs info {};
    if (::statvfs(QFile::encodeName(folder).constData(), &info) != 0)
        return std::nullopt;
    // f_bavail, not f_bfree: the blocks reserved for root are not ours to fill.
    return qint64(info.f_bavail) * qint64(info.f_frsize);
}

Source of(const QString &folder)
{
    return [folder] { return availableBytes(folder); };
}

} // namespace multilane::DiskSpace
