#pragma once

#include <QByteArray>
#include <QString>

// Test data: files of pseudo-random bytes (so a misplaced chunk can never compare equal).
namespace TestFiles {
// Writes `size` bytes derived from `seed`, in bounded pieces (sizes up to many GiB).
bool write(const QString &path, qint64 size, quint32 seed);
QByteArray sha256(const QString &path);
bool sameContents(const QString &a, const QString &b);
} // namespace TestFiles
