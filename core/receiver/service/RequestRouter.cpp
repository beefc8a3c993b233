#include "RequestRouter.h"

#include "ChunkHash.h"
#include "ProtocolNames.h"
#include "Sha256.h"
#include "UploadId.h"
#include "UploadPath.h"

#include <cstring>

namespace multilane::RequestRouter {

namespace {

ProtocolError badRequest(const QString &message)
{
    return ProtocolError::make(ProtocolErrorCode::BadRequest, message);
}

ProtocolError notFound(const ServiceRequest &request)
{
    return ProtocolError::make(
        ProtocolErrorCode::NotFound,
        QStringLiteral("there is no route %1 %2; this receiver speaks protocol v1 "
                       "(docs/protocol.md)")
            .arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path.left(200))));
}

std::optional<ProtocolError> checkId(Route &route, const QByteArray &id)
{
    if (!UploadId::isValid(id))
        return ProtocolError::make(
            ProtocolErrorCode::NoSuchUpload,
            QStringLiteral("'%1' is not an upload id (32 lowercase hex digits); use the id "
                           "POST /v1/uploads answered")
                .arg(QString::fromUtf8(id.left(64))));
    route.id = id;
    return std::nullopt;
}

std::optional<ProtocolError> checkContentLength(Route &route, const ServiceRequest &request)
{
    if (!request.headers.contains("content-length"))
        return ProtocolError::make(ProtocolErrorCode::LengthRequired,
                                   QStringLiteral("the request has no Content-Length; send the body with its "
                                                  "length (no chunked transfer encoding)"));
    const auto length = parseCount(request.header("content-length"));
    if (!length)
        return badRequest(QStringLiteral("Content-Length is not a valid number"));
    route.contentLength = *length;
    return std::nullopt;
}

std::optional<ProtocolError> checkChunk(Route &route, const ServiceRequest &request, const QByteArray &index)
{
    const auto parsed = parseCount(index);
    if (!parsed)
        return badRequest(QStringLiteral("chunk index '%1' is not a non-negative number")
                              .arg(QString::fromUtf8(index.left(40))));
    route.index = *parsed;
    const auto hash = ChunkHash::fromHeader(request.header(Protocol::ChunkHashHeader));
    if (!hash)
        return badRequest(QStringLiteral("X-Chunk-Hash is missing or malformed; send 'xxh3=' and the chunk's "
                                         "XXH3-64 as 16 hex digits"));
    route.chunkHash = *hash;
    route.completeSha256 = request.header(Protocol::CompleteSha256Header).trimmed().toLower();
    if (!route.completeSha256.isEmpty() && !Sha256::isHexDigest(route.completeSha256))
        return badRequest(QStringLiteral("X-Complete-SHA256 must be 64 hex digits"));
    return checkContentLength(route, request);
}

std::optional<ProtocolError> checkFile(Route &route, const ServiceRequest &request, const QByteArray &path)
{
    if (const auto problem = UploadPath::problem(path))
        return ProtocolError::make(ProtocolErrorCode::BadPath,
                                   QStringLiteral("refusing the destination path: %1; send a relative path "
                                                  "below the storage folder")
                                       .arg(*problem));
    route.path = QString::fromUtf8(path);
    QByteArray policyName = request.header(Protocol::OnConflictHeader);
    if (policyName.isEmpty())
        policyName = request.query.value(Protocol::OnConflictParameter, "rename");
    const auto policy = conflictPolicyFromName(policyName.trimmed());
    if (!policy)
        return badRequest(QStringLiteral("onConflict '%1' is unknown; use rename, overwrite, skip or fail")
                              .arg(QString::fromUtf8(policyName.left(40))));
    route.onConflict = *policy;
    route.sha256 = request.header(Protocol::ContentSha256Header).trimmed().toLower();
    if (!route.sha256.isEmpty() && !Sha256::isHexDigest(route.sha256))
        return badRequest(QStringLiteral("X-Content-SHA256 must be 64 hex digits"));
    return checkContentLength(route, request);
}

std::optional<ProtocolError> checkProbe(Route &route, const ServiceRequest &request)
{
    const auto bytes = parseCount(request.query.value(Protocol::ProbeBytesParameter));
    if (!bytes)
        return badRequest(QStringLiteral("probe needs ?bytes=N with N a non-negative number"));
    if (*bytes > MaxProbeBytes)
        return ProtocolError::make(ProtocolErrorCode::TooLarge,
                                   QStringLiteral("a probe may ask for at most %1 bytes").arg(MaxProbeBytes));
    route.probeBytes = *bytes;
    return std::nullopt;
}

// The routes below /v1/uploads/{id}; false when `parts` (the path after "/v1/uploads/", split at
// '/') names none of them.
bool routeUpload(Route &route, const ServiceRequest &request, const QList<QByteArray> &parts,
                 std::optional<ProtocolError> &problem)
{
    const QByteArray &method = request.method;
    const qsizetype count = parts.size();
    if (count == 1 && (method == "GET" || method == "DELETE")) {
        route.kind = method == "GET" ? Route::Kind::GetUpload : Route::Kind::AbortUpload;
    } else if (count == 2 && parts.at(1) == Protocol::CompleteSegment && method == "POST") {
        route.kind = Route::Kind::CompleteUpload;
    } else if (count == 3 && parts.at(1) == Protocol::ChunksSegment && method == "PUT") {
        route.kind = Route::Kind::PutChunk;
    } else {
        return false;
    }
    problem = checkId(route, parts.at(0));
    if (!problem && route.kind == Route::Kind::PutChunk)
        problem = checkChunk(route, request, parts.at(2));
    return true;
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

Result<Route> route(const ServiceRequest &request)
{
    const QByteArray &method = request.method;
    const QByteArray &path = request.path;
    Route route;
    std::optional<ProtocolError> problem;

    static const QByteArray UploadPrefix = QByteArray(Protocol::UploadsRoute) + '/';
    if (path.startsWith(Protocol::FilesRoute) && method == "PUT") {
        route.kind = Route::Kind::PutFile;
        problem = checkFile(route, request, path.mid(qsizetype(std::strlen(Protocol::FilesRoute))));
    } else if (path == Protocol::HealthRoute && method == "GET") {
        route.kind = Route::Kind::Health;
    } else if (path == Protocol::DiscardRoute && method == "PUT") {
        route.kind = Route::Kind::Discard;
        problem = checkContentLength(route, request);
    } else if (path == Protocol::ProbeRoute && method == "GET") {
        route.kind = Route::Kind::Probe;
        problem = checkProbe(route, request);
    } else if (path == Protocol::UploadsRoute && method == "POST") {
        route.kind = Route::Kind::CreateUpload;
    } else if (path.startsWith(UploadPrefix)) {
        const QList<QByteArray> parts = path.mid(UploadPrefix.size()).split('/'); // id, …
        if (!routeUpload(route, request, parts, problem))
            return notFound(request);
    } else {
        return notFound(request);
    }
    return problem ? Result<Route>(*problem) : Result<Route>(route);
}

} // namespace multilane::RequestRouter
