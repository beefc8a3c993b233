#pragma once

#include <QByteArray>
#include <QtGlobal>
#include <functional>
#include <optional>

// Small POSIX file helpers for the local store. Paths are native byte strings; functions that can
// fail return 0 or an errno value so the caller can say what went wrong.
namespace multilane::FileOps {

// A name no other thread or process will pick: "<prefix>.tmp-<pid>-<random>".
QByteArray temporaryName(const QByteArray &prefix);

// Writes content to a temporary file next to path, fsyncs it and renames it over path.
int replaceFile(const QByteArray &path, const QByteArray &content);
// Creates path with content only if it does not exist yet, atomically: the file is written
// under a temporary name and link()ed into place, which fails with EEXIST for the loser of a race.
int createFileOnce(const QByteArray &path, const QByteArray &content);
// Reads a small file (records); nullopt when missing or larger than maxBytes. errno tells why.
std::optional<QByteArray> readSmallFile(const QByteArray &path, qint64 maxBytes = 1 << 20);

// Reads bytes [from, to) of fd in 1 MiB pieces and hands each to `consume`; 0 or errno (EIO when
// the file is shorter).
int readRange(int fd, qint64 from, qint64 to, const std::function<void(const char *, std::size_t)> &consume);

int syncDirectory(const QByteArray &directory);
// Creates the folders of `relativeDirs` below root (like mkdir -p), without following "..".
int makeDirectories(const QByteArray &root, const QByteArray &relativeDirs);

// Size of a regular file, nullopt when there is none (missing, or a folder).
std::optional<qint64> regularFileSize(const QByteArray &path);
bool exists(const QByteArray &path);

} // namespace multilane::FileOps
