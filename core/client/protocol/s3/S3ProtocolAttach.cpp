// S3Protocol, second part: find-or-create and resume. Find-or-create is a chain on one
// connection: HEAD the destination (conflicts, an identical object), ListMultipartUploads for
// an upload a lost journal left (then ListParts), else CreateMultipartUpload.
#include "ChunkPlanner.h"
#include "S3PartPlan.h"
#include "S3Protocol.h"
#include "S3Wire.h"

namespace multilane {

namespace {

// An upload found by listing may have been cut with another part size than this run's (an
// automatic chunk size is measured again each run): its first part says which, when the file
// has more than one part and that size is one S3 allows for it.
qint64 partSizeOf(const QList<S3PartInfo> &parts, qint64 fileSize, qint64 planned)
{
    for (const S3PartInfo &part : parts) {
        if (part.partNumber != 1)
            continue;
        const bool allowed = part.size >= S3PartPlan::MinPartSize && part.size <= S3PartPlan::MaxPartSize &&
                             part.size < fileSize &&
                             (fileSize + part.size - 1) / part.size <= S3PartPlan::MaxParts;
        return allowed ? part.size : planned;
    }
    return planned;
}

} // namespace

Exchange S3Protocol::findOrCreate(const UploadContext &upload) const
{
    State state;
    state.noUnfinishedUploads = upload.noUnfinishedUploads;
    if (!upload.destinationEmptyAtAttach)
        return conflictHead(upload, state);
    // Nothing can be at the name: the listing that said so is as fresh as a HEAD now would be.
    if (std::optional<Exchange> refusal = name(upload, state))
        return *refusal;
    return findUnfinishedOrCreate(upload, state);
}

Exchange S3Protocol::findUnfinishedOrCreate(const UploadContext &upload, const State &state) const
{
    return state.noUnfinishedUploads ? create(upload, state) : listUploads(upload, state);
}

Step<AttachOutcome> S3Protocol::readFindOrCreate(const UploadContext &upload, const Exchange &sent,
                                                 const WireReply &reply) const
{
    State state = stateOf(sent);
    switch (state.stage) {
    case Stage::ConflictHead:
    case Stage::Diagnose: {
        AttachOutcome skipped;
        skipped.result = AttachOutcome::Result::Skipped;
        if (std::optional<Step<AttachOutcome>> step = readConflict(upload, state, reply, skipped))
            return *step;
        return findUnfinishedOrCreate(upload, state);
    }
    case Stage::ListUploads:
        return readListUploads(upload, state, received(reply));
    case Stage::ListParts:
        return readListParts(upload, state, received(reply), false);
    case Stage::Create: {
        const auto created = S3Replies::createMultipartUpload(state.request, received(reply));
        if (!created)
            return S3Wire::toProtocolFailure(created.failure());
        state.uploadId = created.value().uploadId;
        return attached(upload, state);
    }
    default:
        break;
    }
    return refusal(state);
}

Exchange S3Protocol::resumeQuery(const UploadContext &upload) const
{
    const State state = uploadState(upload);
    if (state.stage == Stage::Refused)
        return refused(upload.endpoint, *state.pending);
    return listParts(upload, state);
}

Step<AttachOutcome> S3Protocol::readResumeQuery(const UploadContext &upload, const Exchange &sent,
                                                const WireReply &reply) const
{
    const State state = stateOf(sent);
    if (state.stage == Stage::Refused)
        return refusal(state);
    return readListParts(upload, state, received(reply), true);
}

Exchange S3Protocol::listUploads(const UploadContext &upload, State state, const QString &keyMarker,
                                 const QString &uploadIdMarker) const
{
    state.stage = Stage::ListUploads;
    return exchange(
        m_requests.listMultipartUploads(upload.endpoint.url, state.key, keyMarker, uploadIdMarker), state);
}

Exchange S3Protocol::listParts(const UploadContext &upload, State state, int partNumberMarker) const
{
    state.stage = Stage::ListParts;
    return exchange(m_requests.listParts(upload.endpoint.url, state.key, state.uploadId, partNumberMarker),
                    state);
}

Exchange S3Protocol::create(const UploadContext &upload, State state) const
{
    state.stage = Stage::Create;
    state.uploadId.clear();
    state.parts.clear();
    // Known at create for files up to sha256BeforeCreateUpTo (the engine waits for it).
    return exchange(m_requests.createMultipartUpload(upload.endpoint.url, state.key, {upload.sha256Hex, {}}),
                    state);
}

Step<AttachOutcome> S3Protocol::readListUploads(const UploadContext &upload, State state,
                                                const S3Reply &reply) const
{
    const auto page = S3Replies::listMultipartUploads(state.request, reply);
    if (!page)
        return S3Wire::toProtocolFailure(page.failure());
    // The listing matches by prefix ("a.txt" lists "a.txt.bak" too): only the exact key counts.
    const std::optional<S3OpenUpload> found = S3Replies::newestUploadFor(page.value().uploads, state.key);
    if (found && (!state.newest || found->initiated > state.newest->initiated))
        state.newest = found;
    if (page.value().isTruncated)
        return listUploads(upload, state, page.value().nextKeyMarker, page.value().nextUploadIdMarker);
    if (!state.newest)
        return create(upload, state);
    state.uploadId = state.newest->uploadId;
    return listParts(upload, state);
}

Step<AttachOutcome> S3Protocol::readListParts(const UploadContext &upload, State state, const S3Reply &reply,
                                              bool resuming) const
{
    const auto page = S3Replies::listParts(state.request, reply);
    if (!page) {
        // A listed upload that is gone by now (completed or aborted meanwhile): make a new one.
        if (!resuming && page.failure().kind == S3Failure::Kind::NoSuchUpload)
            return create(upload, state);
        return S3Wire::toProtocolFailure(page.failure()); // resuming: NoSuchUpload is Recreate
    }
    state.parts += page.value().parts;
    if (page.value().isTruncated)
        return listParts(upload, state, page.value().nextPartNumberMarker);
    UploadContext planned = upload;
    if (!resuming) // the journal's upload comes with the part size it was cut with
        planned.chunkSize = partSizeOf(state.parts, upload.source.size, upload.chunkSize);
    return attached(planned, state);
}

AttachOutcome S3Protocol::attached(const UploadContext &upload, const State &state) const
{
    AttachOutcome outcome;
    outcome.result = AttachOutcome::Result::Attached;
    outcome.uploadId = handleOf(upload, state);
    outcome.chunkSize = upload.chunkSize;
    // Compared with the given name's object: if the engine finds it identical, that is the file's
    // place; otherwise complete names the (maybe numbered) one written.
    outcome.remotePath = state.existingSha256.isEmpty() ? state.path : upload.source.destinationPath();
    outcome.existingSha256 = state.existingSha256;
    // A held part counts only with the size the plan gives it: one of another size (another
    // run's part size) is sent again, under the same number.
    const ChunkPlanner plan(upload.source.size, upload.chunkSize);
    for (const S3PartInfo &part : state.parts) {
        const int index = part.partNumber - m_capabilities.firstChunkNumber;
        if (index >= 0 && index < plan.chunkCount() && part.size == plan.chunk(index).length)
            outcome.held.append({index, part.etag});
    }
    return outcome;
}

} // namespace multilane
