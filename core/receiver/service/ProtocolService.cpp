#include "ProtocolService.h"

#include "FolderScope.h"
#include "ProbeStream.h"
#include "ProtocolJson.h"
#include "ProtocolNames.h"
#include "RequestRouter.h"
#include "UploadStore.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QScopeGuard>
#include <memory>

#ifndef MULTILANE_VERSION
#define MULTILANE_VERSION "0.0.0"
#endif

namespace multilane {

namespace {

// Reads a small JSON body; bigger ones are refused instead of buffered.
Result<QByteArray> readJsonBody(const ServiceRequest &request)
{
    QByteArray body;
    bool tooLarge = false;
    if (request.body) {
        const bool complete = request.body([&](const char *data, std::size_t length) {
            if (body.size() + qint64(length) > ProtocolService::MaxJsonBody) {
                tooLarge = true;
                return false;
            }
            body.append(data, qsizetype(length));
            return true;
        });
        if (tooLarge)
            return ProtocolError::make(
                ProtocolErrorCode::TooLarge,
                QStringLiteral("the JSON body is larger than %1 bytes").arg(ProtocolService::MaxJsonBody));
        if (!complete)
            return ProtocolError::make(ProtocolErrorCode::BadRequest,
                                       QStringLiteral("the request body ended early"));
    }
    return body;
}

// A body reader for a request that came without one, so the store sees an empty body.
BodyReader bodyOf(const ServiceRequest &request)
{
    if (request.body)
        return request.body;
    return [](const BodySink &) { return true; };
}

// An error response; 401 also names the scheme the receiver wants (RFC 6750).
ServiceResponse refusal(const ProtocolError &error)
{
    ServiceResponse response = ServiceResponse::error(error);
    if (error.code == ProtocolErrorCode::Unauthorized)
        response.headers.append({QByteArrayLiteral("WWW-Authenticate"),
                                 QByteArrayLiteral("Bearer realm=\"multilane-receiver\"")});
    return response;
}

ProtocolError forbidden(const AccessToken &token, const QString &path)
{
    return ProtocolError::make(ProtocolErrorCode::Forbidden,
                               QStringLiteral("token '%1' may only write below '%2/', not to '%3'; put the "
                                              "destination under '%2/'")
                                   .arg(token.id, token.folder, path.left(200)));
}

} // namespace

struct ProtocolService::Admitted {
    Route route;
    AccessToken token;
};

ProtocolService::ProtocolService(UploadStore &store)
    : ProtocolService(store, Options())
{}

ProtocolService::ProtocolService(UploadStore &store, Options options)
    : m_store(store)
    , m_options(std::move(options))
    , m_admission(store, m_options.limits, m_options.freeSpace, m_options.clock)
{}

QString ProtocolService::version()
{
    return QStringLiteral(MULTILANE_VERSION);
}

std::optional<ServiceResponse> ProtocolService::precheck(const ServiceRequest &request) const
{
    const auto admitted = admit(request);
    if (!admitted)
        return refusal(admitted.error());
    return std::nullopt;
}

ServiceResponse ProtocolService::handle(const ServiceRequest &request)
{
    const auto admitted = admit(request);
    if (!admitted)
        return refusal(admitted.error());
    return dispatch(admitted.value(), request);
}

std::optional<ProtocolError> ProtocolService::checkHeaders(const ServiceRequest &request) const
{
    qint64 bytes = 0;
    for (auto header = request.headers.begin(); header != request.headers.end(); ++header)
        bytes += header.key().size() + header.value().size() + 4; // ": " and CRLF
    const ReceiverLimits &limits = m_options.limits;
    if (bytes <= limits.maxHeaderBytes && request.headers.size() <= limits.maxHeaderCount)
        return std::nullopt;
    return ProtocolError::make(ProtocolErrorCode::HeadersTooLarge,
                               QStringLiteral("the request has %1 header fields of %2 bytes in all; this "
                                              "receiver accepts at most %3 fields and %4 bytes")
                                   .arg(request.headers.size())
                                   .arg(bytes)
                                   .arg(limits.maxHeaderCount)
                                   .arg(limits.maxHeaderBytes));
}

Result<ProtocolService::Admitted> ProtocolService::admit(const ServiceRequest &request) const
{
    if (const auto problem = checkHeaders(request))
        return *problem;
    // Health stays open for load balancers; everything else, unknown routes included, is
    // answered only to a known token, so a stranger learns nothing about the receiver.
    const bool health = request.method == "GET" && request.path == Protocol::HealthRoute;
    const auto token = health ? Result<AccessToken>(AccessPolicy::anonymous())
                              : m_options.access.authenticate(request.header(Protocol::AuthorizationHeader));
    if (!token)
        return token.error();
    auto routed = RequestRouter::route(request);
    if (!routed)
        return routed.error();
    Admitted admitted{std::move(routed.value()), token.value()};
    if (const auto problem = checkScope(admitted.route, admitted.token))
        return *problem;
    if (admitted.route.kind == Route::Kind::PutFile) {
        if (const auto tooLarge =
                m_admission.checkFileSize(admitted.route.path, admitted.route.contentLength))
            return *tooLarge;
        if (const auto refused =
                m_admission.checkStoreLimits(admitted.route.path, admitted.route.contentLength, std::nullopt))
            return *refused;
    }
    if (admitted.route.kind == Route::Kind::PutChunk) {
        if (const auto tooLarge = m_admission.checkChunkSize(admitted.route.contentLength))
            return *tooLarge;
    }
    return admitted;
}

std::optional<ProtocolError> ProtocolService::checkScope(const Route &route, const AccessToken &token) const
{
    if (token.folder.isEmpty())
        return std::nullopt;
    switch (route.kind) {
    case Route::Kind::PutFile:
        if (!FolderScope::contains(token.folder, route.path))
            return forbidden(token, route.path);
        return std::nullopt;
    case Route::Kind::GetUpload:
    case Route::Kind::AbortUpload:
    case Route::Kind::PutChunk:
    case Route::Kind::CompleteUpload: {
        // An id is derived from its path, so the path found now is the path it will always have.
        const auto path = m_store.uploadPath(route.id);
        if (!path)
            return ProtocolError::make(ProtocolErrorCode::NoSuchUpload,
                                       QStringLiteral("upload %1 does not exist (never created, aborted or "
                                                      "expired); create it again with POST /v1/uploads")
                                           .arg(QString::fromLatin1(route.id)));
        if (!FolderScope::contains(token.folder, *path)) // the message does not reveal that path
            return ProtocolError::make(
                ProtocolErrorCode::Forbidden,
                QStringLiteral("upload %1 is outside '%2/', the only folder token '%3' "
                               "may use; use the id of an upload you created there")
                    .arg(QString::fromLatin1(route.id), token.folder, token.id));
        return std::nullopt;
    }
    case Route::Kind::Health:
    case Route::Kind::Probe:
    case Route::Kind::CreateUpload: // its path is in the body: createUpload() checks it
    case Route::Kind::Discard:
        return std::nullopt;
    }
    return std::nullopt;
}

ServiceResponse ProtocolService::dispatch(const Admitted &admitted, const ServiceRequest &request)
{
    const Route &route = admitted.route;
    switch (route.kind) {
    case Route::Kind::Health:
        return health();
    case Route::Kind::Probe:
        return probe(route.probeBytes);
    case Route::Kind::CreateUpload:
        return createUpload(admitted.token, request);
    case Route::Kind::GetUpload: {
        const auto state = m_store.findUpload(route.id);
        return state ? ServiceResponse::json(200, ProtocolJson::uploadState(state.value()))
                     : ServiceResponse::error(state.error());
    }
    case Route::Kind::AbortUpload: {
        m_pendingCompletions.forget(route.id);
        const auto aborted = m_store.abortUpload(route.id);
        return aborted ? ServiceResponse::json(200, {{QStringLiteral("aborted"), true}})
                       : ServiceResponse::error(aborted.error());
    }
    case Route::Kind::PutChunk:
        return putChunk(route, request);
    case Route::Kind::CompleteUpload:
        return complete(route, request);
    case Route::Kind::PutFile:
        return putFile(route, admitted.token, request);
    case Route::Kind::Discard: {
        qint64 received = 0;
        if (request.body)
            request.body([&received](const char *, std::size_t length) {
                received += qint64(length);
                return true;
            });
        return ServiceResponse::json(200, {{QStringLiteral("bytes"), received}});
    }
    }
    return ServiceResponse::error(
        ProtocolError::make(ProtocolErrorCode::NotFound, QStringLiteral("unknown route")));
}

ServiceResponse ProtocolService::health() const
{
    const QJsonObject limits{
        {QLatin1String(Protocol::HealthConnectionsPerClient), m_options.limits.connectionsPerClient}};
    return ServiceResponse::json(200, {{QStringLiteral("status"), QStringLiteral("ok")},
                                       {QStringLiteral("service"), QLatin1String(Protocol::ServiceName)},
                                       {QStringLiteral("protocol"), Protocol::Version},
                                       {QStringLiteral("version"), version()},
                                       {QLatin1String(Protocol::HealthLimits), limits}});
}

ServiceResponse ProtocolService::probe(qint64 bytes) const
{
    ServiceResponse response;
    response.contentType = QByteArrayLiteral("application/octet-stream");
    response.headers.append({QByteArrayLiteral("Cache-Control"), QByteArrayLiteral("no-store")});
    response.streamLength = bytes;
    auto generator = std::make_shared<ProbeStream>(QRandomGenerator::global()->generate64());
    response.stream = [generator](char *buffer, std::size_t capacity) {
        generator->fill(buffer, capacity);
        return capacity;
    };
    return response;
}

ServiceResponse ProtocolService::createUpload(const AccessToken &token, const ServiceRequest &request)
{
    const auto body = readJsonBody(request);
    if (!body)
        return ServiceResponse::error(body.error());
    const auto spec = ProtocolJson::parseCreate(body.value());
    if (!spec)
        return ServiceResponse::error(spec.error());
    const UploadSpec &upload = spec.value();
    if (!FolderScope::contains(token.folder, upload.path))
        return ServiceResponse::error(forbidden(token, upload.path));
    if (const auto tooLarge = m_admission.checkFileSize(upload.path, upload.size))
        return ServiceResponse::error(*tooLarge);
    if (const auto tooLarge = m_admission.checkChunkSize(upload.chunkSize))
        return ServiceResponse::error(*tooLarge);
    if (const auto refused = m_admission.checkStoreLimits(upload.path, upload.size, upload.chunkSize))
        return ServiceResponse::error(*refused);
    const std::lock_guard<std::mutex> creating(m_creating);
    // A resumed upload was admitted when it was created; its space is already counted.
    const bool resumed = m_store.findUploadByKey(upload.key()).ok();
    if (!resumed) {
        if (const auto refused = m_admission.admitNewFile(token, upload.path, upload.size, true))
            return ServiceResponse::error(*refused);
    }
    const auto outcome = m_store.createUpload(upload);
    if (!outcome)
        return ServiceResponse::error(outcome.error());
    const int status = outcome.value().kind == CreateOutcome::Kind::Created ? 201 : 200;
    return ServiceResponse::json(status, ProtocolJson::createOutcome(outcome.value()));
}

ServiceResponse ProtocolService::putChunk(const Route &route, const ServiceRequest &request)
{
    if (const auto refused = m_admission.admitChunkWrite(route.index))
        return ServiceResponse::error(*refused);
    const auto written =
        m_store.writeChunk(route.id, route.index, route.contentLength, route.chunkHash, bodyOf(request));
    if (!written)
        return ServiceResponse::error(written.error());
    QJsonObject answer{{QStringLiteral("index"), written.value().index}, {QStringLiteral("stored"), true}};
    if (written.value().duplicate)
        answer.insert(QStringLiteral("duplicate"), true);
    const bool completed = completeWithChunk(route, answer);
    ServiceResponse response = ServiceResponse::json(200, answer);
    response.completedUpload = completed;
    return response;
}

bool ProtocolService::completeWithChunk(const Route &route, QJsonObject &answer)
{
    // Remembered before looking, and looked for after every chunk's write: of two chunks that end
    // together, one sees the other's record held, or the other sees this hash.
    if (!route.completeSha256.isEmpty())
        m_pendingCompletions.remember(route.id, route.completeSha256);
    const QByteArray sha256 = m_pendingCompletions.find(route.id);
    if (sha256.isEmpty())
        return false;
    const auto finished = m_store.completeIfWhole(route.id, sha256);
    if (!finished)
        return false;
    m_pendingCompletions.forget(route.id);
    // A failure (a damaged file, a conflict) is the client's complete's to report: it sends one
    // when no chunk's answer carried the completion.
    if (!finished->ok())
        return false;
    answer.insert(QStringLiteral("completed"), ProtocolJson::finishedFile(finished->value()));
    return true;
}

ServiceResponse ProtocolService::complete(const Route &route, const ServiceRequest &request)
{
    const auto body = readJsonBody(request);
    if (!body)
        return ServiceResponse::error(body.error());
    const auto sha = ProtocolJson::parseComplete(body.value());
    if (!sha)
        return ServiceResponse::error(sha.error());
    m_pendingCompletions.forget(route.id);
    const auto finished = m_store.completeUpload(route.id, sha.value());
    if (!finished)
        return ServiceResponse::error(finished.error());
    return ServiceResponse::json(200, ProtocolJson::finishedFile(finished.value()));
}

ServiceResponse ProtocolService::putFile(const Route &route, const AccessToken &token,
                                         const ServiceRequest &request)
{
    if (const auto refused = m_admission.admitNewFile(token, route.path, route.contentLength, false))
        return ServiceResponse::error(*refused);
    bool stored = false;
    const auto ended = qScopeGuard([&] { m_admission.wholeFileEnded(token, route.contentLength, stored); });
    const auto finished =
        m_store.putFile(route.path, route.contentLength, route.onConflict, route.sha256, bodyOf(request));
    if (!finished)
        return ServiceResponse::error(finished.error());
    stored = finished.value().status == FinishedFile::Status::Stored;
    const int status = stored ? 201 : 200;
    return ServiceResponse::json(status, ProtocolJson::finishedFile(finished.value()));
}

} // namespace multilane
