#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QtGlobal>

namespace multilane {

// The stable error codes of docs/protocol.md; each maps to one HTTP status.
enum class ErrorCode {
    BadRequest,
    BadPath,
    NoSuchUpload,
    NotFound,
    Conflict,
    Incomplete,
    LengthRequired,
    TooLarge,
    ChecksumMismatch,
    LengthMismatch,
    StorageError,
    Busy,
    Unauthorized,
    Forbidden,
    FileTooLarge,
    ChunkTooLarge,
    QuotaExceeded,
    InsufficientStorage,
    TooManyUploads,
    HeadersTooLarge,
    RequestTimeout, // the request's head did not arrive in time (a trickling client)
};

// An error a store or handler reports as a value: the protocol code, a message that tells the
// user what to do, and for `incomplete` the chunk indexes still missing.
struct ReceiverError {
    ErrorCode code = ErrorCode::StorageError;
    QString message;
    QList<qint64> missing;
    // Extra members of the JSON error object, e.g. quotaBytes/usedBytes for `quota_exceeded`.
    QJsonObject figures;

    static ReceiverError make(ErrorCode code, const QString &message) { return {code, message, {}, {}}; }
    // A failed system call as a storage error, with the OS's reason and a hint for the common ones.
    static ReceiverError fromErrno(int error, const QString &what);
};

// "bad_path", "checksum_mismatch", … as written on the wire.
const char *errorCodeName(ErrorCode code);
int httpStatus(ErrorCode code);

} // namespace multilane
