#pragma once

#include <QByteArrayView>
#include <QStringView>
#include <optional>

namespace multilane {

// The stable error codes of protocol v1 (docs/protocol.md, the table under "Conventions"). The
// receiver answers them, the client reacts to them; each has one wire name and one HTTP status.
enum class ProtocolErrorCode {
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
inline constexpr int ProtocolErrorCodeCount = int(ProtocolErrorCode::RequestTimeout) + 1;

// "bad_path", "checksum_mismatch", … as written on the wire.
const char *protocolErrorCodeName(ProtocolErrorCode code);
// The code a wire name stands for; nullopt for a name this build does not know (a newer receiver
// may send codes an older client has never heard of: treat those by their HTTP status).
std::optional<ProtocolErrorCode> protocolErrorCodeFromName(QByteArrayView name);
std::optional<ProtocolErrorCode> protocolErrorCodeFromName(QStringView name);
int httpStatus(ProtocolErrorCode code);

} // namespace multilane
