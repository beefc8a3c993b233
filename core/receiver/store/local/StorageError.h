#pragma once

#include "ProtocolError.h"

#include <QString>

namespace multilane::StorageError {

// A failed system call of a store as a `storage_error`: what failed, the system's reason, and for
// the common causes (a full disk, missing permissions) what the administrator can do about it.
ProtocolError fromErrno(int error, const QString &what);

} // namespace multilane::StorageError
