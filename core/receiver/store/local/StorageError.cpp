#include "StorageError.h"

#include <QStringBuilder>
#include <cerrno>
#include <cstring>

namespace multilane::StorageError {

ProtocolError fromErrno(int error, const QString &what)
{
    QString hint;
    switch (error) {
    case ENOSPC:
    case EDQUOT:
        hint = QStringLiteral(" — the receiver's disk is full; free space there and retry");
        break;
    case EACCES:
    case EPERM:
    case EROFS:
        hint = QStringLiteral(" — the receiver may not write its storage folder; check its permissions");
        break;
    default:
        break;
    }
    return ProtocolError::make(ProtocolErrorCode::StorageError,
                               what % QStringLiteral(": ") % QString::fromLocal8Bit(std::strerror(error)) %
                                   hint);
}

} // namespace multilane::StorageError
