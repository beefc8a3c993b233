#include "ProtocolErrorCode.h"

#include <QString>

namespace multilane {

const char *protocolErrorCodeName(ProtocolErrorCode code)
{
    switch (code) {
    case ProtocolErrorCode::BadRequest:
        return "bad_request";
    case ProtocolErrorCode::BadPath:
        return "bad_path";
    case ProtocolErrorCode::NoSuchUpload:
        return "no_such_upload";
    case ProtocolErrorCode::NotFound:
        return "not_found";
    case ProtocolErrorCode::Conflict:
        return "conflict";
    case ProtocolErrorCode::Incomplete:
        return "incomplete";
    case ProtocolErrorCode::LengthRequired:
        return "length_required";
    case ProtocolErrorCode::TooLarge:
        return "too_large";
    case ProtocolErrorCode::ChecksumMismatch:
        return "checksum_mismatch";
    case ProtocolErrorCode::LengthMismatch:
        return "length_mismatch";
    case ProtocolErrorCode::StorageError:
        return "storage_error";
    case ProtocolErrorCode::Busy:
        return "busy";
    case ProtocolErrorCode::Unauthorized:
        return "unauthorized";
    case ProtocolErrorCode::Forbidden:
        return "forbidden";
    case ProtocolErrorCode::FileTooLarge:
        return "file_too_large";
    case ProtocolErrorCode::ChunkTooLarge:
        return "chunk_too_large";
    case ProtocolErrorCode::QuotaExceeded:
        return "quota_exceeded";
    case ProtocolErrorCode::InsufficientStorage:
        return "insufficient_storage";
    case ProtocolErrorCode::TooManyUploads:
        return "too_many_uploads";
    case ProtocolErrorCode::HeadersTooLarge:
        return "headers_too_large";
    case ProtocolErrorCode::RequestTimeout:
        return "request_timeout";
    }
    return "storage_error";
}

std::optional<ProtocolErrorCode> protocolErrorCodeFromName(QByteArrayView name)
{
    for (int code = 0; code < ProtocolErrorCodeCount; ++code) {
        if (name == protocolErrorCodeName(ProtocolErrorCode(code)))
            return ProtocolErrorCode(code);
    }
    return std::nullopt;
}

std::optional<ProtocolErrorCode> protocolErrorCodeFromName(QStringView name)
{
    // Every name is ASCII, so a character outside Latin-1 (made '?') can match none of them.
    return protocolErrorCodeFromName(QByteArrayView(name.toLatin1()));
}

int httpStatus(ProtocolErrorCode code)
{
    switch (code) {
    case ProtocolErrorCode::BadRequest:
    case ProtocolErrorCode::BadPath:
        return 400;
    case ProtocolErrorCode::NoSuchUpload:
    case ProtocolErrorCode::NotFound:
        return 404;
    case ProtocolErrorCode::Conflict:
    case ProtocolErrorCode::Incomplete:
        return 409;
    case ProtocolErrorCode::Unauthorized:
        return 401;
    case ProtocolErrorCode::Forbidden:
        return 403;
    case ProtocolErrorCode::LengthRequired:
        return 411;
    case ProtocolErrorCode::TooLarge:
    case ProtocolErrorCode::FileTooLarge:
    case ProtocolErrorCode::ChunkTooLarge:
        return 413;
    case ProtocolErrorCode::TooManyUploads:
        return 429;
    case ProtocolErrorCode::HeadersTooLarge:
        return 431;
    case ProtocolErrorCode::RequestTimeout:
        return 408;
    case ProtocolErrorCode::QuotaExceeded:
    case ProtocolErrorCode::InsufficientStorage:
        return 507;
    case ProtocolErrorCode::ChecksumMismatch:
    case ProtocolErrorCode::LengthMismatch:
        return 422;
    case ProtocolErrorCode::StorageError:
        return 500;
    case ProtocolErrorCode::Busy:
        return 503;
    }
    return 500;
}

} // namespace multilane
