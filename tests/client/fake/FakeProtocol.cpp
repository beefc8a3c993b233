#include "FakeProtocol.h"

namespace multilane::testing {

namespace {

Exchange request(const Endpoint &endpoint, const QByteArray &method, const QString &path)
{
    WireRequest wire;
    wire.method = method;
    wire.url = endpoint.url;
    wire.url.setPath(path);
    return {wire, {}};
}

} // namespace

FakeProtocol::FakeProtocol(bool finishProvesStorage)
{
    m_capabilities.name = QStringLiteral("fake");
    m_capabilities.chunkChecksum = ChunkChecksumKind::Xxh3;
    m_capabilities.finishProvesStorage = finishProvesStorage;
}

std::optional<ProtocolFailure> FakeProtocol::failureOf(const WireReply &reply)
{
    if (reply.isSuccess())
        return std::nullopt;
    ProtocolFailure failure;
    failure.httpStatus = reply.isWhole() ? reply.httpStatus : 0;
    failure.code = QString::number(failure.httpStatus);
    failure.message = QStringLiteral("fake answer %1").arg(failure.httpStatus);
    switch (failure.httpStatus) {
    case 0:
        failure.kind = FailureKind::Retry;
        break;
    case 401:
        failure.kind = FailureKind::BadCredentials;
        break;
    case 404:
        failure.kind = FailureKind::Recreate;
        break;
    case 422:
        failure.kind = FailureKind::Corrupted;
        break;
    case 503:
        failure.kind = FailureKind::Overloaded;
        break;
    default:
        failure.kind = failure.httpStatus >= 500 ? FailureKind::Retry : FailureKind::Fatal;
    }
    return failure;
}

Exchange FakeProtocol::health(const Endpoint &endpoint) const
{
    return request(endpoint, "GET", QStringLiteral("/health"));
}

Step<HealthOutcome> FakeProtocol::readHealth(const Endpoint &, const Exchange &, const WireReply &reply) const
{
    if (auto failure = failureOf(reply))
        return *failure;
    return HealthOutcome{};
}

Exchange FakeProtocol::credentialsCheck(const Endpoint &endpoint) const
{
    return request(endpoint, "GET", QStringLiteral("/credentials"));
}

std::optional<ProtocolFailure> FakeProtocol::readCredentialsCheck(const Endpoint &,
                                                                  const WireReply &reply) const
{
    return failureOf(reply);
}

Exchange FakeProtocol::findOrCreate(const UploadContext &upload) const
{
    // What the destination checks spared this create shows in its route.
    QString route = QStringLiteral("/create");
    if (upload.destinationEmptyAtAttach)
        route += QStringLiteral("-unlooked");
    if (upload.noUnfinishedUploads)
        route += QStringLiteral("-unlisted");
    return request(upload.endpoint, "POST", route + QLatin1Char('/') + upload.source.destinationPath());
}

Step<AttachOutcome> FakeProtocol::readFindOrCreate(const UploadContext &upload, const Exchange &,
                                                   const WireReply &reply) const
{
    if (auto failure = failureOf(reply))
        return *failure;
    AttachOutcome outcome;
    outcome.uploadId = QStringLiteral("up-") + upload.source.destinationPath();
    outcome.chunkSize = upload.chunkSize;
    // The body may list chunks already held, "0=<receipt>,3=<receipt>", and the server's own
    // chunk size, "size=<bytes>".
    for (const QByteArray &item : reply.body.split(',')) {
        const QList<QByteArray> pair = item.split('=');
        if (pair.size() == 2 && pair.at(0) == "size")
            outcome.chunkSize = pair.at(1).toLongLong();
        else if (pair.size() == 2)
            outcome.held.append({pair.at(0).toInt(), pair.at(1)});
    }
    return outcome;
}

Exchange FakeProtocol::resumeQuery(const UploadContext &upload) const
{
    return request(upload.endpoint, "GET", QStringLiteral("/query/") + upload.uploadId);
}

Step<AttachOutcome> FakeProtocol::readResumeQuery(const UploadContext &upload, const Exchange &sent,
                                                  const WireReply &reply) const
{
    Step<AttachOutcome> step = readFindOrCreate(upload, sent, reply);
    return step;
}

Exchange FakeProtocol::sendChunk(const UploadContext &upload, const ChunkToSend &chunk) const
{
    Exchange exchange =
        request(upload.endpoint, "PUT", QStringLiteral("/chunk/%1/%2").arg(upload.uploadId).arg(chunk.index));
    exchange.request.file = FileSlice{upload.source.localPath(), chunk.offset, chunk.length};
    exchange.state = chunk.checksumHex;
    return exchange;
}

Step<ChunkOutcome> FakeProtocol::readChunk(const UploadContext &, const Exchange &sent,
                                           const WireReply &reply) const
{
    if (auto failure = failureOf(reply))
        return *failure;
    return ChunkOutcome{sent.state.toByteArray(), std::nullopt};
}

Exchange FakeProtocol::complete(const UploadContext &upload) const
{
    return request(upload.endpoint, "POST", QStringLiteral("/complete/") + upload.uploadId);
}

Step<FinishOutcome> FakeProtocol::readComplete(const UploadContext &upload, const Exchange &,
                                               const WireReply &reply) const
{
    if (auto failure = failureOf(reply))
        return *failure;
    return FinishOutcome{false, upload.source.destinationPath(),
                         reply.body.isEmpty() ? upload.sha256Hex : reply.body};
}

Exchange FakeProtocol::sendWhole(const UploadContext &upload) const
{
    // A file written without a look first (the destination was seen empty) goes to its own path.
    const QString route =
        upload.destinationWasEmpty ? QStringLiteral("/whole-unlooked/") : QStringLiteral("/whole/");
    Exchange exchange = request(upload.endpoint, "PUT", route + upload.source.destinationPath());
    exchange.request.file = FileSlice{upload.source.localPath(), 0, upload.source.size};
    return exchange;
}

Step<FinishOutcome> FakeProtocol::readWhole(const UploadContext &upload, const Exchange &,
                                            const WireReply &reply) const
{
    if (auto failure = failureOf(reply))
        return *failure;
    return FinishOutcome{false, upload.source.destinationPath(),
                         reply.body.isEmpty() ? upload.sha256Hex : reply.body};
}

Exchange FakeProtocol::abort(const UploadContext &upload) const
{
    return request(upload.endpoint, "DELETE", QStringLiteral("/upload/") + upload.uploadId);
}

Step<AbortOutcome> FakeProtocol::readAbort(const UploadContext &, const Exchange &,
                                           const WireReply &reply) const
{
    if (auto failure = failureOf(reply))
        return *failure;
    return AbortOutcome{};
}

} // namespace multilane::testing
