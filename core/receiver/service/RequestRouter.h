#pragma once

#include "Result.h"
#include "ServiceMessages.h"
#include "UploadTypes.h"

#include <QByteArray>
#include <QString>

namespace multilane {

// A request whose route and parameters were recognised and checked.
struct Route {
    enum class Kind {
        Health,
        Probe,
        CreateUpload,
        GetUpload,
        AbortUpload,
        PutChunk,
        CompleteUpload,
        PutFile,
        Discard // speed tests: the body is read and dropped
    };
    Kind kind = Kind::Health;
    QByteArray id;                                      // uploads/{id}…
    qint64 index = -1;                                  // chunks/{index}
    QString path;                                       // files/{path}, already through UploadPath::problem()
    qint64 contentLength = -1;                          // PUT bodies
    quint64 chunkHash = 0;                              // X-Chunk-Hash
    qint64 probeBytes = 0;                              // probe?bytes=
    ConflictPolicy onConflict = ConflictPolicy::Rename; // PUT files
    QByteArray sha256;                                  // X-Content-SHA256 (PUT files), may be empty
    QByteArray completeSha256;                          // X-Complete-SHA256 (PUT chunks), may be empty
};

// Everything about a request that can be checked without its body or the storage: the route,
// ids, indexes, paths, lengths and headers. Hostile input stops here.
namespace RequestRouter {

inline constexpr qint64 MaxProbeBytes = qint64(1) << 30;

Result<Route> route(const ServiceRequest &request);
// A non-negative decimal without sign or spaces that fits in qint64.
std::optional<qint64> parseCount(const QByteArray &text);

} // namespace RequestRouter
} // namespace multilane
