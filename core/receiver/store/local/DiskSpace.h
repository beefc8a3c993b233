#pragma once

#include <QString>
#include <QtGlobal>
#include <functional>
#include <optional>

// Free space on the storage disk, behind a function so tests can hand in their own figures.
namespace multilane::DiskSpace {

// Bytes an unprivileged writer may still use, or nullopt when the system cannot tell.
using Source = std::function<std::optional<qint64>()>;

std::optional<qint64> availableBytes(const QString &folder);
// A Source that asks statvfs() about `folder` each time it is called (a few microseconds).
Source of(const QString &folder);

} // namespace multilane::DiskSpace
