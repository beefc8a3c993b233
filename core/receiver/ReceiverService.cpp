#include "ReceiverService.h"

#include "ProbeStream.h"
#include "ProtocolJson.h"
#include "RequestRouter.h"
#include "UploadStore.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <memory>

#ifndef MULTILANE_VERSION
#define MULTILANE_VERSION "0.0.0"
#endif

namespace multilane {

namespace {

// Reads a small JSON body; bigger ones are refused instead of buffered.
StoreResult<QByteArray> readJsonBody(const ServiceRequest &request)
{
    QByteArray body;
    bool tooLarge = false;
    if (request.body) {
        const bool complete = request.body([&](const char *data, std::size_t length) {
            if (body.size() + qint64(length) > ReceiverService::MaxJsonBody) {
                tooLarge = true;
                return false;
            }
            body.append(data, qsizetype(length));
            return true;
        });
        if (tooLarge)
            return ReceiverError::make(
                ErrorCode::TooLarge,
                QStringLiteral("the JSON body is larger than %1 bytes").arg(ReceiverService::MaxJsonBody));
        if (!complete)
            return ReceiverError::make(ErrorCode::BadRequest, QStringLiteral("the request body ended early"));
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

} // namespace

ReceiverService::ReceiverService(UploadStore &store)
    : m_store(store)
{}

QString ReceiverService::version()
{
    return QStringLiteral(MULTILANE_VERSION);
}

std::optional<ServiceResponse> ReceiverService::precheck(const ServiceRequest &request) const
{
    const auto routed = RequestRouter::route(request);
    if (!routed)
        return ServiceResponse::error(routed.error());
    return std::nullopt;
}

ServiceResponse ReceiverService::handle(const ServiceRequest &request)
{
    const auto routed = RequestRouter::route(request);
    if (!routed)
        return ServiceResponse::error(routed.error());
    return dispatch(routed.value(), request);
}

ServiceResponse ReceiverService::dispatch(const Route &route, const ServiceRequest &request)
{
    switch (route.kind) {
    case Route::Kind::Health:
        return ServiceResponse::json(200, {{QStringLiteral("status"), QStringLiteral("ok")},
                                           {QStringLiteral("service"), QStringLiteral("multilane-receiver")},
                                           {QStringLiteral("protocol"), 1},
                                           {QStringLiteral("version"), version()}});
    case Route::Kind::Probe:
        return probe(route.probeBytes);
    case Route::Kind::CreateUpload:
        return createUpload(request);
    case Route::Kind::GetUpload: {
        const auto state = m_store.findUpload(route.id);
        return state ? ServiceResponse::json(200, ProtocolJson::uploadState(state.value()))
                     : ServiceResponse::error(state.error());
    }
    case Route::Kind::AbortUpload: {
        const auto aborted = m_store.abortUpload(route.id);
        return aborted ? ServiceResponse::json(200, {{QStringLiteral("aborted"), true}})
                       : ServiceResponse::error(aborted.error());
    }
    case Route::Kind::PutChunk:
        return putChunk(route, request);
    case Route::Kind::CompleteUpload:
        return complete(route, request);
    case Route::Kind::PutFile:
        return putFile(route, request);
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
    return ServiceResponse::error(ReceiverError::make(ErrorCode::NotFound, QStringLiteral("unknown route")));
}

ServiceResponse ReceiverService::probe(qint64 bytes) const
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

ServiceResponse ReceiverService::createUpload(const ServiceRequest &request)
{
    const auto body = readJsonBody(request);
    if (!body)
        return ServiceResponse::error(body.error());
    const auto spec = ProtocolJson::parseCreate(body.value());
    if (!spec)
        return ServiceResponse::error(spec.error());
    const auto outcome = m_store.createUpload(spec.value());
    if (!outcome)
        return ServiceResponse::error(outcome.error());
    const int status = outcome.value().kind == CreateOutcome::Kind::Created ? 201 : 200;
    return ServiceResponse::json(status, ProtocolJson::createOutcome(outcome.value()));
}

ServiceResponse ReceiverService::putChunk(const Route &route, const ServiceRequest &request)
{
    const auto written =
        m_store.writeChunk(route.id, route.index, route.contentLength, route.chunkHash, bodyOf(request));
    if (!written)
        return ServiceResponse::error(written.error());
    QJsonObject answer{{QStringLiteral("index"), written.value().index}, {QStringLiteral("stored"), true}};
    if (written.value().duplicate)
        answer.insert(QStringLiteral("duplicate"), true);
    return ServiceResponse::json(200, answer);
}

ServiceResponse ReceiverService::complete(const Route &route, const ServiceRequest &request)
{
    const auto body = readJsonBody(request);
    if (!body)
        return ServiceResponse::error(body.error());
    const auto sha = ProtocolJson::parseComplete(body.value());
    if (!sha)
        return ServiceResponse::error(sha.error());
    const auto finished = m_store.completeUpload(route.id, sha.value());
    if (!finished)
        return ServiceResponse::error(finished.error());
    return ServiceResponse::json(200, ProtocolJson::finishedFile(finished.value()));
}

ServiceResponse ReceiverService::putFile(const Route &route, const ServiceRequest &request)
{
    const auto finished =
        m_store.putFile(route.path, route.contentLength, route.onConflict, route.sha256, bodyOf(request));
    if (!finished)
        return ServiceResponse::error(finished.error());
    const int status = finished.value().status == FinishedFile::Status::Stored ? 201 : 200;
    return ServiceResponse::json(status, ProtocolJson::finishedFile(finished.value()));
}

} // namespace multilane
