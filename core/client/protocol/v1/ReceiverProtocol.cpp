#include "ReceiverProtocol.h"

#include "ChunkLayout.h"
#include "ReceiverApi.h"
#include "RefusalMessage.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace multilane {

namespace {

QByteArray json(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

WireRequest jsonRequest(const Endpoint &endpoint, const QString &route, const QJsonObject &body)
{
    WireRequest request = ReceiverApi::wireRequest(endpoint, "POST", route);
    request.setHeader("Content-Type", "application/json");
    request.body = json(body);
    return request;
}

WireRequest fileRequest(const Endpoint &endpoint, const QString &route, const FileSlice &slice)
{
    WireRequest request = ReceiverApi::wireRequest(endpoint, "PUT", route);
    request.setHeader("Content-Type", "application/octet-stream");
    request.file = slice;
    return request;
}

// The receiver's answer to create or to a status query: its upload and the chunks it holds.
Step<AttachOutcome> attachFrom(const ApiReply &answer, bool isCreate)
{
    const QJsonObject &body = answer.body;
    AttachOutcome outcome;
    outcome.remotePath = body.value(QLatin1String("path")).toString();
    const QString status = body.value(QLatin1String("status")).toString();
    if (isCreate && (status == QLatin1String("done") || status == QLatin1String("skipped"))) {
        // "done": an earlier run already finished this very file (same path, size and mtime).
        outcome.result = status == QLatin1String("done") ? AttachOutcome::Result::AlreadyStored
                                                         : AttachOutcome::Result::Skipped;
        outcome.sha256Hex = body.value(QLatin1String("sha256")).toString().toLatin1();
        return outcome;
    }
    outcome.uploadId = body.value(QLatin1String("id")).toString();
    outcome.chunkSize = body.value(QLatin1String("chunkSize")).toInteger();
    if (outcome.uploadId.isEmpty() || outcome.chunkSize < 1) {
        ProtocolFailure failure;
        failure.httpStatus = answer.httpStatus;
        failure.code = QStringLiteral("bad_answer");
        failure.message = QStringLiteral("the receiver's answer to create has no upload id");
        return failure;
    }
    const QJsonArray received = body.value(QLatin1String("received")).toArray();
    const QJsonArray hashes = body.value(QLatin1String("receivedHashes")).toArray();
    // An older receiver sends no hashes: its chunks count as held, unverified.
    const bool verifiable = hashes.size() == received.size();
    for (qsizetype i = 0; i < received.size(); ++i) {
        HeldChunk held;
        held.index = received.at(i).toInt(-1);
        if (verifiable)
            held.receipt = hashes.at(i).toString().toLatin1();
        outcome.held.append(held);
    }
    const QJsonObject existing = body.value(QLatin1String("existing")).toObject();
    outcome.existingSha256 = existing.value(QLatin1String("sha256")).toString().toLatin1();
    return outcome;
}

FinishOutcome finishFrom(const QJsonObject &answer, const QString &defaultPath)
{
    FinishOutcome outcome;
    outcome.remotePath = answer.value(QLatin1String("path")).toString(defaultPath);
    outcome.skipped = answer.value(QLatin1String("status")).toString() == QLatin1String("skipped");
    outcome.sha256Hex = answer.value(QLatin1String("sha256")).toString().toLatin1();
    return outcome;
}

} // namespace

ReceiverProtocol::ReceiverProtocol()
{
    m_capabilities.name = QStringLiteral("multilane");
    m_capabilities.minChunkSize = 1;
    m_capabilities.maxChunkSize = ChunkLayout::MaxChunkSize;
    m_capabilities.maxChunks = int(ChunkLayout::MaxChunkCount);
    m_capabilities.firstChunkNumber = 0;
    m_capabilities.chunkChecksum = ChunkChecksumKind::Xxh3;
    m_capabilities.serverVerifiesFile = true;
    m_capabilities.serverFixesChunkSize = true;
    m_capabilities.hasProbeRoute = true;
    m_capabilities.finishProvesStorage = true;
    m_capabilities.pipelines = true;
    m_capabilities.chunksComplete = true;
}

ProtocolFailure ReceiverProtocol::failureFor(const ApiError &error, const Endpoint &endpoint)
{
    ProtocolFailure failure;
    failure.httpStatus = error.httpStatus;
    failure.code = error.code;
    failure.message =
        error.isTlsFailure() ? error.message : RefusalMessage::explain(error, endpoint.displayName());
    for (const QJsonValue &index : error.details.value(QLatin1String("missing")).toArray())
        failure.missingChunks.append(index.toInt(-1));
    if (error.isTlsFailure())
        failure.kind = FailureKind::Fatal; // the same certificate would be refused again
    else if (RefusalMessage::isBadToken(error))
        failure.kind = FailureKind::BadCredentials;
    else if (error.is(ProtocolErrorCode::NoSuchUpload))
        failure.kind = FailureKind::Recreate;
    else if (error.is(ProtocolErrorCode::ChecksumMismatch))
        failure.kind = FailureKind::Corrupted;
    else if (error.httpStatus == 503)
        failure.kind = FailureKind::Overloaded;
    else if (error.isRetriable())
        failure.kind = FailureKind::Retry;
    else if (error.httpStatus == 507)
        failure.kind = FailureKind::ResumeLater; // disk full or quota: retrying within seconds cannot help
    else
        failure.kind = FailureKind::Fatal;
    return failure;
}

Exchange ReceiverProtocol::health(const Endpoint &endpoint) const
{
    return {ReceiverApi::wireRequest(endpoint, "GET", ReceiverApi::healthRoute()), QStringLiteral("health")};
}

Step<HealthOutcome> ReceiverProtocol::readHealth(const Endpoint &endpoint, const Exchange &,
                                                 const WireReply &reply) const
{
    const ApiReply answer = ReceiverApi::read(reply);
    const QString name = endpoint.displayName();
    ProtocolFailure problem;
    if (answer.error) {
        if (answer.error->isTlsFailure())
            return failureFor(*answer.error, endpoint); // names the endpoint and the fix already
        problem.kind = FailureKind::Retry;
        problem.httpStatus = answer.error->httpStatus;
        problem.message =
            QStringLiteral("%1 does not answer (%2); check that multilane-receiver runs there and "
                           "the address is right")
                .arg(name, answer.error->message);
        // A TLS port closes a plain HTTP connection without a word.
        if (endpoint.url.scheme() == QLatin1String("http") && reply.closedUnanswered)
            problem.message += QStringLiteral(" (a receiver started with --tls-cert needs https://)");
        return problem;
    }
    if (answer.body.value(QLatin1String("protocol")).toInt() != ReceiverApi::ProtocolVersion) {
        problem.kind = FailureKind::Fatal;
        problem.httpStatus = answer.httpStatus;
        problem.message = QStringLiteral("%1 is not a multilane-receiver speaking protocol %2")
                              .arg(name)
                              .arg(ReceiverApi::ProtocolVersion);
        return problem;
    }
    HealthOutcome outcome;
    outcome.version = answer.body.value(QLatin1String("version")).toString();
    // Optional: receivers before 0.2 do not say.
    outcome.connectionsPerClient = answer.body.value(QLatin1String(Protocol::HealthLimits))
                                       .toObject()
                                       .value(QLatin1String(Protocol::HealthConnectionsPerClient))
                                       .toInt(0);
    return outcome;
}

Exchange ReceiverProtocol::credentialsCheck(const Endpoint &endpoint) const
{
    // Health is open to everyone (load balancers); an empty probe needs the token like every
    // other route.
    return {ReceiverApi::wireRequest(endpoint, "GET", ReceiverApi::probeRoute(),
                                     QLatin1String(Protocol::ProbeBytesParameter) + QStringLiteral("=0")),
            {}};
}

std::optional<ProtocolFailure> ReceiverProtocol::readCredentialsCheck(const Endpoint &endpoint,
                                                                      const WireReply &reply) const
{
    const ApiReply answer = ReceiverApi::read(reply);
    if (answer.error && (answer.error->httpStatus == 401 || answer.error->httpStatus == 403))
        return failureFor(*answer.error, endpoint);
    return std::nullopt;
}

Exchange ReceiverProtocol::findOrCreate(const UploadContext &upload) const
{
    QJsonObject body{
        {QStringLiteral("path"), upload.source.destinationPath()},
        {QStringLiteral("size"), upload.source.size},
        {QStringLiteral("mtime"), upload.source.mtimeMs},
        {QStringLiteral("chunkSize"), upload.chunkSize},
        {QStringLiteral("onConflict"), QString::fromLatin1(conflictPolicyName(upload.onConflict))}};
    if (!upload.sha256Hex.isEmpty())
        body.insert(QStringLiteral("sha256"), QString::fromLatin1(upload.sha256Hex));
    return {jsonRequest(upload.endpoint, ReceiverApi::createRoute(), body), {}};
}

Step<AttachOutcome> ReceiverProtocol::readFindOrCreate(const UploadContext &upload, const Exchange &,
                                                       const WireReply &reply) const
{
    const ApiReply answer = ReceiverApi::read(reply);
    if (answer.error)
        return failureFor(*answer.error, upload.endpoint);
    return attachFrom(answer, true);
}

Exchange ReceiverProtocol::resumeQuery(const UploadContext &upload) const
{
    return {ReceiverApi::wireRequest(upload.endpoint, "GET", ReceiverApi::uploadRoute(upload.uploadId)), {}};
}

Step<AttachOutcome> ReceiverProtocol::readResumeQuery(const UploadContext &upload, const Exchange &,
                                                      const WireReply &reply) const
{
    const ApiReply answer = ReceiverApi::read(reply);
    if (answer.error)
        return failureFor(*answer.error, upload.endpoint);
    return attachFrom(answer, false);
}

Exchange ReceiverProtocol::sendChunk(const UploadContext &upload, const ChunkToSend &chunk) const
{
    WireRequest request = fileRequest(upload.endpoint, ReceiverApi::chunkRoute(upload.uploadId, chunk.index),
                                      {upload.source.localPath(), chunk.offset, chunk.length});
    request.setHeader(Protocol::ChunkHashHeader, "xxh3=" + chunk.checksumHex);
    if (!chunk.completeWithSha256Hex.isEmpty())
        request.setHeader(Protocol::CompleteSha256Header, chunk.completeWithSha256Hex);
    return {request, chunk.checksumHex};
}

Step<ChunkOutcome> ReceiverProtocol::readChunk(const UploadContext &upload, const Exchange &sent,
                                               const WireReply &reply) const
{
    const ApiReply answer = ReceiverApi::read(reply);
    if (answer.error)
        return failureFor(*answer.error, upload.endpoint);
    // The receiver stored exactly the bytes whose XXH3 we sent: that checksum is the receipt.
    ChunkOutcome outcome{sent.state.toByteArray(), std::nullopt};
    const QJsonValue completed = answer.body.value(QLatin1String("completed"));
    if (completed.isObject())
        outcome.finished = finishFrom(completed.toObject(), upload.source.destinationPath());
    return outcome;
}

Exchange ReceiverProtocol::complete(const UploadContext &upload) const
{
    return {jsonRequest(upload.endpoint, ReceiverApi::completeRoute(upload.uploadId),
                        {{QStringLiteral("sha256"), QString::fromLatin1(upload.sha256Hex)}}),
            {}};
}

Step<FinishOutcome> ReceiverProtocol::readComplete(const UploadContext &upload, const Exchange &,
                                                   const WireReply &reply) const
{
    const ApiReply answer = ReceiverApi::read(reply);
    if (!answer.error)
        return finishFrom(answer.body, upload.source.destinationPath());
    ProtocolFailure failure = failureFor(*answer.error, upload.endpoint);
    // The receiver lacks chunks, or reset them after a bad whole-file hash: ask it again what it
    // holds and send the rest.
    const ApiError &error = *answer.error;
    if (error.is(ProtocolErrorCode::Incomplete) || error.is(ProtocolErrorCode::NoSuchUpload) ||
        error.is(ProtocolErrorCode::ChecksumMismatch)) {
        failure.kind = FailureKind::Recreate;
        failure.message = answer.error->message;
    }
    return failure;
}

Exchange ReceiverProtocol::sendWhole(const UploadContext &upload) const
{
    WireRequest request =
        fileRequest(upload.endpoint, ReceiverApi::filesRoute(upload.source.destinationPath()),
                    {upload.source.localPath(), 0, upload.source.size});
    request.setHeader(Protocol::ContentSha256Header, upload.sha256Hex);
    request.setHeader(Protocol::OnConflictHeader, conflictPolicyName(upload.onConflict));
    return {request, {}};
}

Step<FinishOutcome> ReceiverProtocol::readWhole(const UploadContext &upload, const Exchange &,
                                                const WireReply &reply) const
{
    const ApiReply answer = ReceiverApi::read(reply);
    if (answer.error)
        return failureFor(*answer.error, upload.endpoint);
    return finishFrom(answer.body, upload.source.destinationPath());
}

Exchange ReceiverProtocol::abort(const UploadContext &upload) const
{
    return {ReceiverApi::wireRequest(upload.endpoint, "DELETE", ReceiverApi::uploadRoute(upload.uploadId)),
            {}};
}

Step<AbortOutcome> ReceiverProtocol::readAbort(const UploadContext &upload, const Exchange &,
                                               const WireReply &reply) const
{
    const ApiReply answer = ReceiverApi::read(reply);
    if (answer.error)
        return failureFor(*answer.error, upload.endpoint);
    return AbortOutcome{};
}

} // namespace multilane
