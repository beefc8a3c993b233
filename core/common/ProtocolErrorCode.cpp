#include "ProtocolError.h"

#include <cerrno>
#include <cstring>

namespace multilane {

ReceiverError ReceiverError::fromErrno(int error, const QString &what)
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
    return make(ErrorCode::StorageError,
                what % QStringLiteral(": ") % QString::fromLocal8Bit(std::strerror(error)) % hint);
}

const char *errorCodeName(ErrorCode code)
{
    switch (code) {
    case ErrorCode::BadRequest:
        return "bad_request";
    case ErrorCode::BadPath:
        return "bad_path";
    case ErrorCode::NoSuchUpload:
        return "no_such_upload";
    case ErrorCode::NotFound:
        return "not_found";
    case ErrorCode::Conflict:
        return "conflict";
    case ErrorCode::Incomplete:
        return "incomplete";
    case ErrorCode::LengthRequired:
        return "length_required";
    case ErrorCode::TooLarge:
        return "too_large";
    case ErrorCode::ChecksumMismatch:
        return "checksum_mismatch";
    case ErrorCode::LengthMismatch:
        return "length_mismatch";
    case ErrorCode::StorageError:
        return "storage_error";
    case ErrorCode::Busy:
        return "busy";
    case ErrorCode::Unauthorized:
        return "unauthorized";
    case ErrorCode::Forbidden:
        return "forbidden";
    case ErrorCode::FileTooLarge:
        return "file_too_large";
    case ErrorCode::ChunkTooLarge:
        return "chunk_too_large";
    case ErrorCode::QuotaExceeded:
        return "quota_exceeded";
    case ErrorCode::InsufficientStorage:
        return "insufficient_storage";
    case ErrorCode::TooManyUploads:
        return "too_many_uploads";
    case ErrorCode::HeadersTooLarge:
        return "headers_too_large";
    case ErrorCode::RequestTimeout:
        return "request_timeout";
    }
    return "storage_error";
}

int httpStatus(ErrorCode code)
{
    switch (code) {
    case ErrorCode::BadRequest:
    case ErrorCode::BadPath:
        return 400;
    case ErrorCode::NoSuchUpload:
    case ErrorCode::NotFound:
        return 404;
    case ErrorCode::Conflict:
    case ErrorCode::Incomplete:
        return 409;
    case ErrorCode::Unauthorized:
        return 401;
    case ErrorCode::Forbidden:
        return 403;
    case ErrorCode::LengthRequired:
        return 411;
    case ErrorCode::TooLarge:
    case ErrorCode::FileTooLarge:
    case ErrorCode::ChunkTooLarge:
        return 413;
    case ErrorCode::TooManyUploads:
        return 429;
    case ErrorCode::HeadersTooLarge:
        return 431;
    case ErrorCode::RequestTimeout:
        return 408;
    case ErrorCode::QuotaExceeded:
    case ErrorCode::InsufficientStorage:
        return 507;
    case ErrorCode::ChecksumMismatch:
    case ErrorCode::LengthMismatch:
        return 422;
    case ErrorCode::StorageError:
        return 500;
    case ErrorCode::Busy:
        return 503;
    }
    return 500;
}

} // namespace multilane
