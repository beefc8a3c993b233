#include "LocalFileStat.h"

#include <QFile>

#include <sys/stat.h>

namespace multilane {

std::optional<LocalFileStat> LocalFileStat::of(const QString &path)
{
    struct stat entry {};
    if (::stat(QFile::encodeName(path).constData(), &entry) != 0)
        return std::nullopt;
    return from(entry);
}

LocalFileStat LocalFileStat::from(const struct stat &entry)
{
    LocalFileStat result;
    result.size = qint64(entry.st_size);
    result.mtimeMs = qint64(entry.st_mtim.tv_sec) * 1000 + qint64(entry.st_mtim.tv_nsec) / 1000000;
    result.isRegular = S_ISREG(entry.st_mode);
    return result;
}

} // namespace multilane
