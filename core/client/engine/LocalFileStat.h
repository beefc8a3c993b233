#pragma once

#include <QString>
#include <optional>

struct stat;

namespace multilane {

// What a source file's size and modification time are now, from one stat() call. QFileInfo
// gives the same figures for three to five system calls a file (a statx, an access, and two
// looks at /etc/localtime for lastModified()'s local time), which at 100,000 small files is
// a good part of the client's CPU. mtimeMs is milliseconds since the epoch, truncated as
// QFileInfo truncates them, so journals written before still match.
struct LocalFileStat {
    qint64 size = 0;
    qint64 mtimeMs = 0;
    bool isRegular = false;

    // Follows symbolic links; nullopt when the path cannot be reached.
    static std::optional<LocalFileStat> of(const QString &path);
    static LocalFileStat from(const struct stat &entry);
};

} // namespace multilane
