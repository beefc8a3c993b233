#pragma once

#include <QByteArray>
#include <QString>
#include <QtGlobal>

// An upload's id is derived from the client's upload key, so every receiver process computes
// the same id for the same file without sharing any table.
namespace multilane::UploadId {

inline constexpr int Length = 32;

// First 32 hex digits of SHA-256("v1\n" + path + "\n" + size + "\n" + mtime).
QByteArray forKey(const QString &path, qint64 size, qint64 mtime);
// 32 lowercase hex digits; anything else never reaches the file system.
bool isValid(const QByteArray &id);

} // namespace multilane::UploadId
