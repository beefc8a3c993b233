// S3Protocol, third part: finishing a file. Complete, then HEAD (Ceph's Complete answers no ETag,
// and the metadata shows whether the SHA-256 is there), the object's ETag checked against the
// file's part MD5s, then x-amz-meta-sha256 attached by a copy onto itself when it is missing.
// A whole file: HEAD the destination, PutObject, its ETag checked against the file's MD5.
#include "Md5Digest.h"
#include "S3Etag.h"
#include "S3FailureClassifier.h"
#include "S3PartPlan.h"
#include "S3Protocol.h"
#include "S3Wire.h"

namespace multilane {

namespace {

QByteArray multipartEtagOf(const QList<QByteArray> &partMd5Hex)
{
    QList<QByteArray> binary;
    for (const QByteArray &hex : partMd5Hex)
        binary.append(QByteArray::fromHex(hex));
    return S3Etag::ofMultipart(binary);
}

// The whole file's MD5 (16 bytes): a single-request file's one chunk checksum is that; an empty
// file has none. Empty when it is not known.
QByteArray wholeFileMd5(const UploadContext &upload)
{
    if (upload.source.size == 0)
        return Md5Digest::of({});
    if (upload.sourceChunkChecksums.size() == 1)
        return QByteArray::fromHex(upload.sourceChunkChecksums.first());
    return {};
}

} // namespace

FinishOutcome S3Protocol::finished(const UploadContext &upload, const State &state) const
{
    FinishOutcome outcome;
    outcome.remotePath = state.path;
    outcome.sha256Hex = upload.sha256Hex;
    return outcome;
}

Exchange S3Protocol::complete(const UploadContext &upload) const
{
    State state = uploadState(upload);
    if (state.stage == Stage::Refused)
        return refused(upload.endpoint, *state.pending);
    // The engine's own read of the file (the whole-file pass) gives the ETag to expect, so a part
    // read differently when it was sent shows as a mismatch.
    if (upload.sourceChunkChecksums.size() != upload.receipts.size())
        return refused(
            upload.endpoint,
            S3Wire::fatal(QStringLiteral("not_verifiable"),
                          QStringLiteral("cannot verify '%1': the MD5s of its %2 parts are not known")
                              .arg(upload.source.localPath())
                              .arg(upload.receipts.size())));
    state.stage = Stage::Complete;
    state.expectedEtag = multipartEtagOf(upload.sourceChunkChecksums);
    QList<S3CompletedPart> parts;
    for (qsizetype index = 0; index < upload.receipts.size(); ++index)
        parts.append({int(index) + m_capabilities.firstChunkNumber, upload.receipts.at(index)});
    return exchange(m_requests.completeMultipartUpload(upload.endpoint.url, state.key, state.uploadId, parts),
                    state);
}

Step<FinishOutcome> S3Protocol::readComplete(const UploadContext &upload, const Exchange &sent,
                                             const WireReply &reply) const
{
    State state = stateOf(sent);
    const S3Reply answer = received(reply);
    switch (state.stage) {
    case Stage::Complete: {
        const auto completed = S3Replies::completeMultipartUpload(state.request, answer);
        if (completed)
            return headAfterComplete(upload, state);
        const S3Failure &failure = completed.failure();
        // A Complete sent again after its first answer was lost finds no upload (AWS: NoSuchUpload;
        // Ceph: 500): the object may be ours already, which the HEAD tells. (No answer at all: the
        // HEAD would find nobody either; the engine sends the Complete again.)
        const bool answered = failure.httpStatus != 0;
        if (failure.kind == S3Failure::Kind::NoSuchUpload ||
            (failure.kind == S3Failure::Kind::Retry && answered)) {
            state.pending = S3Wire::toProtocolFailure(failure);
            return headAfterComplete(upload, state);
        }
        return S3Wire::toProtocolFailure(failure);
    }
    case Stage::HeadAfterComplete:
        return readHeadAfterComplete(upload, state, answer);
    case Stage::CopyMetadata: {
        const auto copied = S3Replies::copyObject(state.request, answer);
        if (!copied)
            return S3Wire::toProtocolFailure(copied.failure());
        return finished(upload, state);
    }
    default:
        break;
    }
    return refusal(state);
}

Exchange S3Protocol::headAfterComplete(const UploadContext &upload, State state) const
{
    state.stage = Stage::HeadAfterComplete;
    return exchange(m_requests.headObject(upload.endpoint.url, state.key), state);
}

Step<FinishOutcome> S3Protocol::readHeadAfterComplete(const UploadContext &upload, State state,
                                                      const S3Reply &reply) const
{
    const auto head = S3Replies::headObject(state.request, reply);
    if (!head)
        return state.pending ? *state.pending : S3Wire::toProtocolFailure(head.failure());
    const std::optional<S3ObjectHead> &object = head.value();
    const bool ours =
        object && object->size == upload.source.size && S3Etag::equal(object->etag, state.expectedEtag);
    if (!ours && state.pending)
        return *state.pending; // the Complete failed, and the object there (if any) is not this file
    if (!object)
        return S3Wire::toProtocolFailure(S3FailureClassifier::unreadableAnswer(
            state.request, reply,
            QStringLiteral("the upload was completed but the object is not there yet")));
    if (!ours)
        return S3Wire::fatal(
            QStringLiteral("etag_mismatch"),
            QStringLiteral(
                "s3://%1/%2 holds %3 bytes with ETag %4, but %5 (%6 bytes) gives ETag %7: the object "
                "is not this file; upload it again")
                .arg(m_requests.target().bucket(), state.key)
                .arg(object->size)
                .arg(QString::fromLatin1(object->etag), upload.source.localPath())
                .arg(upload.source.size)
                .arg(QString::fromLatin1(state.expectedEtag)));
    // The SHA-256 went with the create (files up to sha256BeforeCreateUpTo), or is added now by
    // a copy onto itself, guarded by the verified ETag. AWS copies at most 5 GiB in one request:
    // a larger object stays without it.
    if (object->sha256Hex == upload.sha256Hex.toLower() || object->size > S3PartPlan::MaxPutObjectSize)
        return finished(upload, state);
    state.stage = Stage::CopyMetadata;
    return exchange(m_requests.copyObjectReplacingMetadata(upload.endpoint.url, state.key,
                                                           {upload.sha256Hex, {}}, state.expectedEtag),
                    state);
}

Exchange S3Protocol::sendWhole(const UploadContext &upload) const
{
    if (!upload.destinationWasEmpty)
        return conflictHead(upload, State{});
    // The prefix listed no key after this file was queued: no HEAD first (a round trip per small
    // file). If-None-Match makes a name taken since (another writer, or two files of this upload
    // with one name) a 412, and a HEAD after all.
    State state;
    if (std::optional<Exchange> refusal = name(upload, state))
        return *refusal;
    state.onlyIfAbsent = true;
    return put(upload, state);
}

Step<FinishOutcome> S3Protocol::readWhole(const UploadContext &upload, const Exchange &sent,
                                          const WireReply &reply) const
{
    State state = stateOf(sent);
    switch (state.stage) {
    case Stage::ConflictHead:
    case Stage::Diagnose: {
        FinishOutcome skipped;
        skipped.skipped = true;
        if (std::optional<Step<FinishOutcome>> step = readConflict(upload, state, reply, skipped))
            return *step;
        return put(upload, state);
    }
    case Stage::Put:
        return readPut(upload, state, received(reply));
    default:
        break;
    }
    return refusal(state);
}

Exchange S3Protocol::put(const UploadContext &upload, State state) const
{
    const QByteArray md5 = wholeFileMd5(upload);
    if (md5.isEmpty())
        return refused(upload.endpoint,
                       S3Wire::fatal(QStringLiteral("not_verifiable"),
                                     QStringLiteral("cannot send '%1' in one request: its MD5 is not known")
                                         .arg(upload.source.localPath())));
    state.stage = Stage::Put;
    state.expectedEtag = S3Etag::ofSinglePut(md5);
    const S3Request request = m_requests.putObject(upload.endpoint.url, state.key, {0, upload.source.size},
                                                   md5, {upload.sha256Hex, {}}, state.onlyIfAbsent);
    return exchange(request, state, upload.source.localPath());
}

Step<FinishOutcome> S3Protocol::readPut(const UploadContext &upload, const State &state,
                                        const S3Reply &reply) const
{
    const auto etag = S3Replies::putObject(state.request, reply);
    if (!etag && state.onlyIfAbsent) {
        // 412: written since it was seen free; 409 ConditionalRequestConflict (AWS): another write
        // of the key was under way; 501 NotImplemented: a server without conditional writes. Look
        // at the name and decide as for any that is taken; it goes without the condition next.
        const S3Failure &failure = etag.failure();
        if (failure.httpStatus == 412 || failure.httpStatus == 501 ||
            failure.code == QLatin1String("ConditionalRequestConflict") ||
            failure.code == QLatin1String("NotImplemented")) {
            State again = state;
            again.onlyIfAbsent = false;
            again.conditionRefusedFor = state.renameNumber;
            return Step<FinishOutcome>(conflictHead(upload, again));
        }
    }
    if (!etag)
        return S3Wire::toProtocolFailure(etag.failure());
    if (!S3Etag::equal(etag.value(), state.expectedEtag))
        return S3Wire::fatal(
            QStringLiteral("etag_mismatch"),
            QStringLiteral("s3://%1/%2 was stored with ETag %3, but the MD5 of %4 is %5: the "
                           "object is not this file (a bucket with SSE-KMS or SSE-C encryption "
                           "cannot be checked this way)")
                .arg(m_requests.target().bucket(), state.key, QString::fromLatin1(etag.value()),
                     upload.source.localPath(), QString::fromLatin1(state.expectedEtag)));
    return finished(upload, state);
}

} // namespace multilane
