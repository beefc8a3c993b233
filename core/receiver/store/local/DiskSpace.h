#pragma once

#include "StoreTypes.h"

#include <QString>
#include <QtGlobal>
#include <optional>

// Room on the file system of a folder, from statvfs() (a few microseconds a call).
namespace multilane::DiskSpace {

// Bytes an unprivileged writer may still use, or nullopt when the system cannot tell.
std::optional<qint64> availableBytes(const QString &folder);
// Those and the file system's size.
StorageSpace of(const QString &folder);

} // namespace multilane::DiskSpace
