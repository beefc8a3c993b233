// S3Protocol, first part: capabilities, health, credentials, parts, abort, and the look at the
// destination that find-or-create and a whole-file upload share. The follow-up chains are in
// S3ProtocolAttach.cpp (find-or-create, resume) and S3ProtocolFinish.cpp (complete, whole file).
#include "S3Protocol.h"

#include "S3ConflictCheck.h"
#include "S3FailureClassifier.h"
#include "S3PartPlan.h"
#include "S3UploadHandle.h"
#include "S3Wire.h"

namespace multilane {

S3ProtocolOptions S3ProtocolOptions::forTarget(const S3Target &target)
{
    S3ProtocolOptions options;
    if (!target.isAws())
        options.sha256BeforeCreateUpTo = Sha256BeforeCreateWhenCopyIsCheap;
    return options;
}

S3Protocol::S3Protocol(S3Target target, S3Credentials credentials, S3ProtocolOptions options)
    : m_requests(std::move(target), std::move(credentials), options.clock)
    , m_options(std::move(options))
{
    m_capabilities.name = QStringLiteral("S3");
    m_capabilities.minChunkSize = S3PartPlan::MinPartSize;
    m_capabilities.maxChunkSize = S3PartPlan::MaxPartSize;
    m_capabilities.maxChunks = S3PartPlan::MaxParts;
    m_capabilities.firstChunkNumber = 1;
    m_capabilities.chunkChecksum = ChunkChecksumKind::Md5;
    // The client checks the object's ETag against the parts' MD5s; S3 knows no whole-file hash.
    m_capabilities.serverVerifiesFile = false;
    m_capabilities.serverFixesChunkSize = false;
    m_capabilities.resumesByQuery = true;
    m_capabilities.hasProbeRoute = false;
    m_capabilities.maxSingleRequest = S3PartPlan::MaxPutObjectSize;
    m_capabilities.sha256BeforeCreateUpTo = m_options.sha256BeforeCreateUpTo;
    // A PutObject's or a Complete's success is checked against the ETag computed here: a
    // gateway whose check is still out may end files, so small files do not wait a round trip.
    m_capabilities.finishProvesStorage = true;
    m_capabilities.pipelines = true;
}

// ---- building and reading ---------------------------------------------------------------------

Exchange S3Protocol::exchange(const S3Request &request, State state, const QString &localPath) const
{
    state.request = request.context;
    return {S3Wire::toWire(request, localPath), QVariant::fromValue(state)};
}

Exchange S3Protocol::refused(const Endpoint &endpoint, const ProtocolFailure &failure) const
{
    State state;
    state.stage = Stage::Refused;
    state.pending = failure;
    return exchange(m_requests.headBucket(endpoint.url), state);
}

ProtocolFailure S3Protocol::refusal(const State &state)
{
    if (state.pending)
        return *state.pending;
    return S3Wire::fatal(QStringLiteral("bad_state"),
                         QStringLiteral("an S3 answer was read as the answer of another operation"));
}

S3Reply S3Protocol::received(const WireReply &reply) const
{
    return S3Wire::fromWire(reply, m_options.clock ? m_options.clock() : QDateTime::currentDateTimeUtc());
}

S3Protocol::State S3Protocol::uploadState(const UploadContext &upload) const
{
    const S3Target &target = m_requests.target();
    const S3Result<QString> defaultKey = target.objectKey(upload.source.destinationPath());
    const S3UploadHandle handle =
        S3UploadHandle::decode(upload.uploadId, defaultKey ? defaultKey.value() : QString());
    State state;
    state.uploadId = handle.uploadId;
    state.key = handle.key;
    state.path = state.key.startsWith(target.prefix()) ? state.key.mid(target.prefix().size()) : state.key;
    if (state.key.isEmpty()) {
        state.stage = Stage::Refused;
        state.pending = S3Wire::fatal(QStringLiteral("bad_key"), defaultKey.failure().userMessage);
    }
    return state;
}

QString S3Protocol::handleOf(const UploadContext &upload, const State &state) const
{
    const S3Result<QString> defaultKey = m_requests.target().objectKey(upload.source.destinationPath());
    return S3UploadHandle{state.uploadId, state.key}.encode(defaultKey ? defaultKey.value() : QString());
}

// ---- health and credentials ---------------------------------------------------------------------

Exchange S3Protocol::health(const Endpoint &endpoint) const
{
    // HEAD bucket: cheap, and any answer at all (even 403 for a user who may only write) shows
    // a gateway is there. Whether it takes our keys is credentialsCheck's question.
    State state;
    state.stage = Stage::Health;
    return exchange(m_requests.headBucket(endpoint.url), state);
}

Step<HealthOutcome> S3Protocol::readHealth(const Endpoint &, const Exchange &sent,
                                           const WireReply &reply) const
{
    const State state = stateOf(sent);
    const S3Reply answer = received(reply);
    if (answer.httpStatus != 0 && answer.httpStatus < 500) {
        HealthOutcome outcome;
        outcome.version = QString::fromUtf8(answer.header("Server"));
        return outcome;
    }
    ProtocolFailure failure = S3Wire::toProtocolFailure(S3FailureClassifier::classify(state.request, answer));
    if (failure.kind != FailureKind::Fatal) { // a TLS failure stays fatal: the same certificate again
        failure.kind = FailureKind::Retry;
        failure.message += QStringLiteral("; check that the S3 gateway runs there and the address is right");
    }
    return failure;
}

Exchange S3Protocol::credentialsCheck(const Endpoint &endpoint) const
{
    // A listing of the target's unfinished uploads: signed, with an error body that names the
    // problem (a HEAD's 403 cannot say whether the secret, the clock or a permission is wrong),
    // and a permission the upload needs anyway (a lost journal's upload is found this way).
    State state;
    return exchange(m_requests.listMultipartUploads(endpoint.url, m_requests.target().prefix(), {}, {}, 1),
                    state);
}

std::optional<ProtocolFailure> S3Protocol::readCredentialsCheck(const Endpoint &endpoint,
                                                                const WireReply &reply) const
{
    const S3RequestContext context =
        m_requests.listMultipartUploads(endpoint.url, m_requests.target().prefix(), {}, {}, 1).context;
    const auto listed = S3Replies::listMultipartUploads(context, received(reply));
    if (listed)
        return std::nullopt;
    const ProtocolFailure failure = S3Wire::toProtocolFailure(listed.failure());
    // No answer or a busy gateway says nothing about the keys; health checks report those.
    if (failure.kind == FailureKind::Retry || failure.kind == FailureKind::Overloaded)
        return std::nullopt;
    return failure;
}

QList<Exchange> S3Protocol::destinationChecks(const Endpoint &endpoint) const
{
    // One key or one upload under the prefix is enough to say "not empty".
    State objects;
    objects.stage = Stage::CheckObjects;
    State uploads;
    uploads.stage = Stage::CheckUploads;
    const QString &prefix = m_requests.target().prefix();
    return {exchange(m_requests.listObjects(endpoint.url, prefix, 1), objects),
            exchange(m_requests.listMultipartUploads(endpoint.url, prefix, {}, {}, 1), uploads)};
}

DestinationFinding S3Protocol::readDestinationCheck(const Endpoint &, const Exchange &sent,
                                                    const WireReply &reply) const
{
    const State state = stateOf(sent);
    if (state.stage == Stage::CheckObjects) {
        const auto keys = S3Replies::listObjects(state.request, received(reply));
        return keys && keys.value().isEmpty() ? DestinationFinding::NoObjects : DestinationFinding::Nothing;
    }
    if (state.stage == Stage::CheckUploads) {
        const auto page = S3Replies::listMultipartUploads(state.request, received(reply));
        return page && page.value().uploads.isEmpty() && !page.value().isTruncated
                   ? DestinationFinding::NoUnfinishedUploads
                   : DestinationFinding::Nothing;
    }
    return DestinationFinding::Nothing;
}

// ---- parts and abort ------------------------------------------------------------------------------

Exchange S3Protocol::sendChunk(const UploadContext &upload, const ChunkToSend &chunk) const
{
    State state = uploadState(upload);
    if (state.stage == Stage::Refused)
        return refused(upload.endpoint, *state.pending);
    state.stage = Stage::UploadPart;
    state.expectedEtag = chunk.checksumHex;
    const S3Request request = m_requests.uploadPart(
        upload.endpoint.url, state.key, state.uploadId, chunk.index + m_capabilities.firstChunkNumber,
        {chunk.offset, chunk.length}, QByteArray::fromHex(chunk.checksumHex));
    return exchange(request, state, upload.source.localPath());
}

Step<ChunkOutcome> S3Protocol::readChunk(const UploadContext &, const Exchange &sent,
                                         const WireReply &reply) const
{
    const State state = stateOf(sent);
    if (state.stage == Stage::Refused)
        return refusal(state);
    // The server checked Content-MD5; the part's ETag is what Complete must list.
    const auto etag = S3Replies::uploadPart(state.request, received(reply));
    if (!etag)
        return S3Wire::toProtocolFailure(etag.failure());
    return ChunkOutcome{etag.value(), std::nullopt};
}

Exchange S3Protocol::abort(const UploadContext &upload) const
{
    State state = uploadState(upload);
    if (state.stage == Stage::Refused)
        return refused(upload.endpoint, *state.pending);
    state.stage = Stage::Abort;
    return exchange(m_requests.abortMultipartUpload(upload.endpoint.url, state.key, state.uploadId), state);
}

Step<AbortOutcome> S3Protocol::readAbort(const UploadContext &, const Exchange &sent,
                                         const WireReply &reply) const
{
    const State state = stateOf(sent);
    if (state.stage == Stage::Refused)
        return refusal(state);
    const auto aborted = S3Replies::abortMultipartUpload(state.request, received(reply));
    // Already gone (aborted, expired, completed): nothing is left to drop.
    if (aborted || aborted.failure().kind == S3Failure::Kind::NoSuchUpload)
        return AbortOutcome{};
    return S3Wire::toProtocolFailure(aborted.failure());
}

// ---- the destination --------------------------------------------------------------------------

std::optional<Exchange> S3Protocol::name(const UploadContext &upload, State &state) const
{
    const QString given = upload.source.destinationPath();
    state.path = state.renameNumber == 0 ? given : S3ConflictCheck::numberedPath(given, state.renameNumber);
    const S3Result<QString> key = m_requests.target().objectKey(state.path);
    if (!key)
        return refused(upload.endpoint, S3Wire::fatal(QStringLiteral("bad_key"), key.failure().userMessage));
    state.key = key.value();
    return std::nullopt;
}

Exchange S3Protocol::conflictHead(const UploadContext &upload, State state) const
{
    if (std::optional<Exchange> refusal = name(upload, state))
        return *refusal;
    state.stage = Stage::ConflictHead;
    return exchange(m_requests.headObject(upload.endpoint.url, state.key), state);
}

template<typename Outcome>
std::optional<Step<Outcome>> S3Protocol::readConflict(const UploadContext &upload, State &state,
                                                      const WireReply &reply, Outcome skipped) const
{
    using Action = S3ConflictDecision::Action;
    const S3Reply answer = received(reply);
    if (state.stage == Stage::Diagnose) {
        // The listing's refusal names the cause; if it is allowed, the HEAD's 403 was about the object.
        const auto listed = S3Replies::listMultipartUploads(state.request, answer);
        return Step<Outcome>(listed ? *state.pending : S3Wire::toProtocolFailure(listed.failure()));
    }
    const auto head = S3Replies::headObject(state.request, answer);
    if (!head) {
        const ProtocolFailure failure = S3Wire::toProtocolFailure(head.failure());
        if (answer.httpStatus != 403 || !answer.body.isEmpty())
            return Step<Outcome>(failure);
        state.stage = Stage::Diagnose;
        state.pending = failure;
        return Step<Outcome>(
            exchange(m_requests.listMultipartUploads(upload.endpoint.url, state.key, {}, {}, 1), state));
    }
    const QString where = QStringLiteral("s3://%1/%2").arg(m_requests.target().bucket(), state.key);
    const S3ConflictDecision decision =
        S3ConflictCheck::decide(head.value(), upload.source, upload.sha256Hex, upload.onConflict, where);
    if (state.renameNumber == 0)
        state.existingSha256 = decision.existingSha256; // compared with the given name's object only
    switch (decision.action) {
    case Action::Write:
        // Nothing there now: nor may there be when the object lands. A name whose conditional
        // write was refused and that a HEAD then finds free again goes without the condition:
        // a server that refuses it for nothing must not loop.
        state.onlyIfAbsent = !head.value() && state.renameNumber != state.conditionRefusedFor;
        return std::nullopt;
    case Action::Skip:
        skipped.remotePath = state.path;
        if (!upload.sha256Hex.isEmpty() && head.value()->sha256Hex == upload.sha256Hex.toLower())
            skipped.sha256Hex = upload.sha256Hex;
        return Step<Outcome>(skipped);
    case Action::Refuse:
        return Step<Outcome>(S3Wire::fatal(QStringLiteral("conflict"), decision.message));
    case Action::TryNextName:
        break;
    }
    if (state.renameNumber >= S3ConflictCheck::MaxNumberedNames)
        return Step<Outcome>(S3Wire::fatal(
            QStringLiteral("conflict"),
            QStringLiteral("%1 and its next %2 numbered names are taken; choose --on-conflict overwrite or "
                           "skip, or another destination")
                .arg(where)
                .arg(S3ConflictCheck::MaxNumberedNames)));
    ++state.renameNumber;
    return Step<Outcome>(conflictHead(upload, state));
}

template std::optional<Step<AttachOutcome>> S3Protocol::readConflict(const UploadContext &, State &,
                                                                     const WireReply &, AttachOutcome) const;
template std::optional<Step<FinishOutcome>> S3Protocol::readConflict(const UploadContext &, State &,
                                                                     const WireReply &, FinishOutcome) const;

} // namespace multilane
