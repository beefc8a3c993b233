#include "RequestRouter.h"

#include "ChunkHash.h"
#include "Sha256.h"
#include "UploadId.h"
#include "UploadPath.h"

namespace multilane::RequestRouter {

namespace {

ReceiverError badRequest(const QString &message)
{
    return ReceiverError::make(ErrorCode::BadRequest, message);
}

ReceiverError notFound(const ServiceRequest &request)
{
    return ReceiverError::make(
        ErrorCode::NotFound,
        QStringLiteral("there is no route %1 %2; this receiver speaks protocol v1 "
                       "(docs/protocol.md)")
            .arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path.left(200))));
}

std::optional<ReceiverError> checkId(Route &route, const QByteArray &id)
{
    if (!UploadId::isValid(id))
        return ReceiverError::make(
            ErrorCode::NoSuchUpload,
            QStringLiteral("'%1' is not an upload id (32 lowercase hex digits); use the id "
                           "POST /v1/uploads answered")
                .arg(QString::fromUtf8(id.left(64))));
    route.id = id;
    return std::nullopt;
}

std::optional<ReceiverError> checkContentLength(Route &route, const ServiceRequest &request)
{
    if (!request.headers.contains("content-length"))
        return ReceiverError::make(ErrorCode::LengthRequired,
                                   QStringLiteral("the request has no Content-Length; send the body with its "
                                                  "length (no chunked transfer encoding)"));
    const auto length = parseCount(request.header("content-length"));
    if (!length)
        return badRequest(QStringLiteral("Content-Length is not a valid number"));
    route.contentLength = *length;
    return std::nullopt;
}

std::optional<ReceiverError> checkChunk(Route &route, const ServiceRequest &request, const QByteArray &index)
{
    const auto parsed = parseCount(index);
    if (!parsed)
        return badRequest(QStringLiteral("chunk index '%1' is not a non-negative number")
                              .arg(QString::fromUtf8(index.left(40))));
    route.index = *parsed;
    const auto hash = ChunkHash::fromHeader(request.header("x-chunk-hash"));
    if (!hash)
        return badRequest(QStringLiteral("X-Chunk-Hash is missing or malformed; send 'xxh3=' and the chunk's "
                                         "XXH3-64 as 16 hex digits"));
    route.chunkHash = *hash;
    return checkContentLength(route, request);
}

std::optional<ReceiverError> checkFile(Route &route, const ServiceRequest &request, const QByteArray &path)
{
    if (const auto problem = UploadPath::problem(path))
        return ReceiverError::make(ErrorCode::BadPath,
                                   QStringLiteral("refusing the destination path: %1; send a relative path "
                                                  "below the storage folder")
                                       .arg(*problem));
    route.path = QString::fromUtf8(path);
    QByteArray policyName = request.header("x-multilane-on-conflict");
    if (policyName.isEmpty())
        policyName = request.query.value("onConflict", "rename");
    const auto policy = conflictPolicyFromName(policyName.trimmed());
    if (!policy)
        return badRequest(QStringLiteral("onConflict '%1' is unknown; use rename, overwrite, skip or fail")
                              .arg(QString::fromUtf8(policyName.left(40))));
    route.onConflict = *policy;
    route.sha256 = request.header("x-content-sha256").trimmed().toLower();
    if (!route.sha256.isEmpty() && !Sha256::isHexDigest(route.sha256))
        return badRequest(QStringLiteral("X-Content-SHA256 must be 64 hex digits"));
    return checkContentLength(route, request);
}

std::optional<ReceiverError> checkProbe(Route &route, const ServiceRequest &request)
{
    const auto bytes = parseCount(request.query.value("bytes"));
    if (!bytes)
        return badRequest(QStringLiteral("probe needs ?bytes=N with N a non-negative number"));
    if (*bytes > MaxProbeBytes)
        return ReceiverError::make(ErrorCode::TooLarge,
                                   QStringLiteral("a probe may ask for at most %1 bytes").arg(MaxProbeBytes));
    route.probeBytes = *bytes;
    return std::nullopt;
}

} // namespace

std::optional<qint64> parseCount(const QByteArray &text)
{
    if (text.isEmpty() || text.size() > 18)
        return std::nullopt; // 18 digits cannot overflow qint64
    for (const char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
    }
    return text.toLongLong();
}

StoreResult<Route> route(const ServiceRequest &request)
{
    const QByteArray &method = request.method;
    const QByteArray &path = request.path;
    Route route;
    std::optional<ReceiverError> problem;

    if (path.startsWith("/v1/files/") && method == "PUT") {
        route.kind = Route::Kind::PutFile;
        problem = checkFile(route, request, path.mid(10));
        return problem ? StoreResult<Route>(*problem) : StoreResult<Route>(route);
    }
    const QList<QByteArray> parts = path.split('/'); // "", "v1", …
    const qsizetype count = parts.size();
    if (count < 3 || !parts.at(0).isEmpty() || parts.at(1) != "v1")
        return notFound(request);
    const QByteArray &resource = parts.at(2);
    if (count == 3 && resource == "health" && method == "GET") {
        route.kind = Route::Kind::Health;
    } else if (count == 3 && resource == "discard" && method == "PUT") {
        route.kind = Route::Kind::Discard;
        problem = checkContentLength(route, request);
    } else if (count == 3 && resource == "probe" && method == "GET") {
        route.kind = Route::Kind::Probe;
        problem = checkProbe(route, request);
    } else if (count == 3 && resource == "uploads" && method == "POST") {
        route.kind = Route::Kind::CreateUpload;
    } else if (count == 4 && resource == "uploads" && (method == "GET" || method == "DELETE")) {
        route.kind = method == "GET" ? Route::Kind::GetUpload : Route::Kind::AbortUpload;
        problem = checkId(route, parts.at(3));
    } else if (count == 5 && resource == "uploads" && parts.at(4) == "complete" && method == "POST") {
        route.kind = Route::Kind::CompleteUpload;
        problem = checkId(route, parts.at(3));
    } else if (count == 6 && resource == "uploads" && parts.at(4) == "chunks" && method == "PUT") {
        route.kind = Route::Kind::PutChunk;
        problem = checkId(route, parts.at(3));
        if (!problem)
            problem = checkChunk(route, request, parts.at(5));
    } else {
        return notFound(request);
    }
    return problem ? StoreResult<Route>(*problem) : StoreResult<Route>(route);
}

} // namespace multilane::RequestRouter
