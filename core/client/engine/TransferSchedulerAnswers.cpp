// TransferScheduler, second part: what the answers lead to (the first part picks and sends work).
#include "TransferScheduler.h"

namespace multilane {

void TransferScheduler::onCallFinished(WireCall *call)
{
    accountBusySlots();
    call->deleteLater();
    auto found = m_inFlight.find(call);
    if (found == m_inFlight.end())
        return;
    InFlight request = *found;
    m_inFlight.erase(found);
    m_waitingForWork.removeOne(call);
    WireCall *promoted = handOnPlace(request);
    m_bytesInFlight -= request.sent;
    TransferJob &job = m_jobs.job(request.job);
    job.addBytesInFlight(-request.sent);
    m_dirtyJobs.insert(request.job);
    const WireReply &reply = call->reply();
    if (request.cancelled) {
        releaseLease(request);
        putBack(job, request);
    } else if (reply.unreadableBody) {
        releaseLease(request);
        if (!isTerminal(job.state()))
            finishJob(job, TransferState::Failed, *reply.unreadableBody);
    } else {
        handleAnswer(job, request, reply);
    }
    // Those behind the one that took this one's place carry fewer bytes now: one more may go behind
    // the last of them, if its body is written already.
    WireCall *last = promoted;
    for (auto next = m_inFlight.constFind(last); next != m_inFlight.cend() && next->behind;
         next = m_inFlight.constFind(last))
        last = next->behind;
    if (const auto tail = m_inFlight.constFind(last); tail != m_inFlight.cend() && isBodyWritten(*tail))
        sendBehind(last);
    pump();
}

WireCall *TransferScheduler::handOnPlace(InFlight &request)
{
    if (request.ahead) {
        // Ended before the one ahead of it (cancelled, or their connection ended): it held no
        // lease, and the one behind it, if any, now follows the one ahead.
        --m_requestsBehind;
        if (auto ahead = m_inFlight.find(request.ahead); ahead != m_inFlight.end())
            ahead->behind = request.behind;
        if (auto behind = m_inFlight.find(request.behind); behind != m_inFlight.end())
            behind->ahead = request.ahead;
        request.ahead = nullptr;
        request.behind = nullptr;
        request.holdsLease = false;
        return nullptr;
    }
    WireCall *next = std::exchange(request.behind, nullptr);
    auto behind = next ? m_inFlight.find(next) : m_inFlight.end();
    if (behind == m_inFlight.end())
        return nullptr;
    --m_requestsBehind; // it counts in the level from now on
    behind->ahead = nullptr;
    behind->holdsLease = request.holdsLease;
    behind->keptThroughDrain = request.keptThroughDrain;
    behind->startedMs = now(); // its own time, for the endpoint's score, starts now
    request.holdsLease = false;
    return next;
}

void TransferScheduler::releaseLease(const InFlight &request)
{
    if (request.holdsLease)
        m_pool.release(request.lease);
}

template<typename Outcome> bool TransferScheduler::followUp(const Step<Outcome> &step, InFlight &request)
{
    const Exchange *next = step.next();
    if (!next)
        return false;
    // The lease stays with the operation: its next request takes the connection the last one freed.
    request.exchange = *next;
    send(request);
    return true;
}

void TransferScheduler::recordAnswer(const InFlight &request, const ProtocolFailure *failure)
{
    EndpointStats &stats = m_endpointStats[request.lease.endpoint];
    const bool carriedData = request.exchange.request.file.has_value();
    if (failure) {
        ++stats.failures;
        stats.lastError = failure->message;
        ++m_failures;
        if (failure->kind == FailureKind::Overloaded)
            ++m_overloads;
        if (carriedData)
            m_scorer.recordFailure(request.lease.endpoint);
        if (!failure->answered())
            m_monitor.recordNetworkFailure(request.lease.endpoint);
    } else {
        m_monitor.recordSuccess(request.lease.endpoint);
        if (carriedData) {
            ++stats.chunks;
            stats.bytes += request.sent;
            m_scorer.recordSuccess(request.lease.endpoint, request.sent, now() - request.startedMs);
        }
    }
    if (carriedData) {
        m_scorer.clearOutstanding(request.lease.endpoint); // it may have been this one; the next look says
        updatePoolScores();
    }
}

void TransferScheduler::updatePoolScores()
{
    if (!m_options.scoreEndpoints)
        return;
    // Scores are relative to the best endpoint, so one measurement can move them all.
    for (int endpoint = 0; endpoint < m_pool.endpointCount(); ++endpoint)
        m_pool.setScore(endpoint, m_scorer.weight(endpoint));
}

void TransferScheduler::scoreRequestsOut()
{
    if (!m_options.scoreEndpoints)
        return;
    m_requestsOutScoredMs = now();
    QList<EndpointScorer::OutstandingRequest> out;
    out.reserve(m_inFlight.size());
    const qint64 nowMs = now();
    for (const InFlight &request : std::as_const(m_inFlight)) {
        // Those behind another have not started on the wire; a cancelled one says nothing.
        if (request.exchange.request.file && !request.ahead && !request.cancelled)
            out.append(
                {request.lease.endpoint, request.exchange.request.file->length, nowMs - request.startedMs});
    }
    m_scorer.recordOutstanding(out);
    updatePoolScores();
}

void TransferScheduler::handleAnswer(TransferJob &job, InFlight &request, const WireReply &reply)
{
    const UploadProtocol &protocol = *m_services.protocol;
    const UploadContext context = contextFor(job, request.lease);
    const auto settle = [&](const auto &step) -> const ProtocolFailure * {
        // Every answer counts for the endpoint's health and score, follow-ups included.
        recordAnswer(request, step.failure());
        if (!step.failure() && followUp(step, request))
            return nullptr;
        releaseLease(request);
        return step.failure();
    };
    if (request.kind == RequestKind::Chunk) {
        const Step<ChunkOutcome> step = protocol.readChunk(context, request.exchange, reply);
        if (step.failure() && waitForCheck(job, request))
            return;
        const ProtocolFailure *failure = settle(step);
        if (failure && failure->kind == FailureKind::BadCredentials)
            refuseEndpoint(job, request, *failure);
        else if (!step.next())
            onChunkAnswer(job, request, step);
        return;
    }
    const auto fail = [&](const ProtocolFailure &failure) {
        if (failure.kind == FailureKind::BadCredentials && request.kind != RequestKind::Abort) {
            refuseEndpoint(job, request, failure);
            return;
        }
        if (isTerminal(job.state()))
            return;
        job.requestInFlight = false;
        const bool retriable = failure.kind == FailureKind::Retry ||
                               failure.kind == FailureKind::Overloaded ||
                               failure.kind == FailureKind::Corrupted;
        if (request.kind == RequestKind::Abort) {
            finishJob(job, TransferState::Skipped); // the identical file is there; the upload expires
        } else if (request.kind == RequestKind::Complete && failure.kind == FailureKind::Recreate) {
            onCompleteFailure(job, failure);
        } else if (retriable) {
            putBack(job, request);
            retryJobLater(job, failure.message, !failure.answered());
        } else {
            finishJob(job, TransferState::Failed, failure.message, failure.isWorthResumingLater());
        }
    };
    switch (request.kind) {
    case RequestKind::Create:
    case RequestKind::Query: {
        const bool query = request.kind == RequestKind::Query;
        UploadContext asked = context;
        if (query)
            asked.uploadId = job.known().uploadId;
        const Step<AttachOutcome> step = query ? protocol.readResumeQuery(asked, request.exchange, reply)
                                               : protocol.readFindOrCreate(asked, request.exchange, reply);
        if (step.failure() && waitForCheck(job, request))
            return;
        const ProtocolFailure *failure = settle(step);
        if (failure && query && failure->kind == FailureKind::Recreate && !isTerminal(job.state())) {
            // The server no longer has it (aborted, expired, completed): start a new one.
            job.setKnown({});
            job.requestInFlight = false;
        } else if (failure)
            fail(*failure);
        else if (const AttachOutcome *outcome = step.outcome(); outcome && !isTerminal(job.state()))
            onCreateAnswer(job, *outcome);
        return;
    }
    case RequestKind::Complete:
    case RequestKind::Single: {
        const Step<FinishOutcome> step = request.kind == RequestKind::Complete
                                             ? protocol.readComplete(context, request.exchange, reply)
                                             : protocol.readWhole(context, request.exchange, reply);
        // From an endpoint still unchecked, a success counts only when it names the file's SHA-256.
        const FinishOutcome *finished = step.outcome();
        const bool unproven = finished && finished->sha256Hex.compare(job.sha256(), Qt::CaseInsensitive) != 0;
        if ((step.failure() || unproven) && waitForCheck(job, request))
            return;
        if (const ProtocolFailure *failure = settle(step))
            fail(*failure);
        else if (const FinishOutcome *outcome = step.outcome(); outcome && !isTerminal(job.state()))
            onFinishAnswer(job, *outcome);
        return;
    }
    case RequestKind::Abort: {
        const Step<AbortOutcome> step = protocol.readAbort(context, request.exchange, reply);
        if (const ProtocolFailure *failure = settle(step))
            fail(*failure);
        else if (step.outcome() && !isTerminal(job.state()))
            finishJob(job, TransferState::Skipped);
        return;
    }
    case RequestKind::Chunk:
        break;
    }
}

void TransferScheduler::onCreateAnswer(TransferJob &job, const AttachOutcome &outcome)
{
    job.requestInFlight = false;
    job.setRemotePath(outcome.remotePath);
    if (outcome.result != AttachOutcome::Result::Attached) {
        // AlreadyStored: an earlier run already finished this very file (same path, size, mtime).
        if (!outcome.sha256Hex.isEmpty())
            job.setSha256(outcome.sha256Hex);
        finishJob(job, TransferState::Skipped);
        return;
    }
    m_bytesAcknowledged -= job.acknowledgedBytes();
    QList<HeldChunk> held = outcome.held;
    const ChunkChecksumKind kind = m_services.protocol->capabilities().chunkChecksum;
    for (HeldChunk &chunk : held)
        chunk.receipt = ChunkChecksum::normalised(kind, chunk.receipt);
    job.attachUpload(outcome.uploadId, outcome.chunkSize > 0 ? outcome.chunkSize : job.planner().chunkSize(),
                     held);
    m_bytesAcknowledged += job.acknowledgedBytes();
    job.needsCreate = false;
    job.setKnown({});
    Q_EMIT uploadAttached(job.id());
    job.setExistingSha256(outcome.existingSha256);
    // Same size as a file already there: hold the chunks until our hash says whether it is ours.
    job.waitingForHashToCompare =
        !job.existingSha256().isEmpty() && (job.sha256().isEmpty() || job.sha256() == job.existingSha256());
    m_jobs.setState(job, TransferState::Uploading);
    checkHeldChunks(job);
}

void TransferScheduler::onChunkAnswer(TransferJob &job, const InFlight &request,
                                      const Step<ChunkOutcome> &step)
{
    if (isTerminal(job.state()) || request.uploadId != job.uploadId())
        return; // an answer for an upload this job no longer uses
    if (const ChunkOutcome *outcome = step.outcome()) {
        const qint64 before = job.acknowledgedBytes();
        job.acknowledge(request.chunk, outcome->receipt);
        m_bytesAcknowledged += job.acknowledgedBytes() - before;
        // A completion counts only where it names our SHA-256 (an unchecked endpoint included).
        if (outcome->finished && outcome->finished->sha256Hex.compare(job.sha256(), Qt::CaseInsensitive) == 0)
            job.setFinishedOnServer(*outcome->finished);
        const int jobId = job.id();
        Q_EMIT chunkAcknowledged(jobId, request.chunk);
        // A listener may have added files, and moved the jobs.
        TransferJob &acknowledged = m_jobs.job(jobId);
        const FinishOutcome *finished = acknowledged.finishedOnServer();
        if (finished && acknowledged.allChunksAcknowledged() && !isTerminal(acknowledged.state())) {
            if (sourceChanged(acknowledged))
                failAsChanged(acknowledged);
            else
                onFinishAnswer(acknowledged, FinishOutcome(*finished));
        }
        return;
    }
    const ProtocolFailure &failure = *step.failure();
    if (failure.kind == FailureKind::Recreate) {
        // Expired or aborted on the server: attach again; held chunks come back in the answer.
        job.returnToPending(request.chunk);
        job.needsCreate = true;
        m_jobs.setState(job, TransferState::Preparing);
        return;
    }
    // No answer at all is the endpoint's fault, not the chunk's: it does not use up the chunk's
    // attempts (the circuit breaker and --max-offline bound that wait instead).
    const int attempts = failure.answered() ? job.bumpChunkAttempts(request.chunk) : 1;
    const bool retriable = failure.kind == FailureKind::Retry || failure.kind == FailureKind::Overloaded ||
                           failure.kind == FailureKind::Corrupted;
    if (!retriable || attempts >= m_options.maxAttempts) {
        job.returnToPending(request.chunk);
        finishJob(job, TransferState::Failed,
                  QStringLiteral("chunk %1 failed after %2 attempts: %3")
                      .arg(request.chunk)
                      .arg(attempts)
                      .arg(failure.message),
                  failure.isWorthResumingLater());
        return;
    }
    // A corrupted chunk is read and checksummed again; anything else keeps its checksum.
    const bool recompute = failure.kind == FailureKind::Corrupted;
    const int jobId = job.id();
    const QString uploadId = job.uploadId();
    const ReadyChunk again{request.chunk, request.checksumHex};
    QTimer::singleShot(recompute ? 0 : retryDelayMs(attempts), this,
                       [this, jobId, uploadId, again, recompute] {
                           TransferJob &retried = m_jobs.job(jobId);
                           if (isTerminal(retried.state()) || retried.uploadId() != uploadId)
                               return;
                           if (recompute)
                               retried.returnToPending(again.index);
                           else
                               retried.addReady(again);
                           pump();
                       });
}

void TransferScheduler::onCompleteFailure(TransferJob &job, const ProtocolFailure &failure)
{
    // The server lacks chunks (or reset them after a bad whole-file check): ask it again what it
    // holds and send the rest, a bounded number of times.
    if (job.bumpAttempts() >= m_options.maxAttempts) {
        finishJob(job, TransferState::Failed,
                  QStringLiteral("the receiver could not verify the file: %1").arg(failure.message));
        return;
    }
    job.needsCreate = true;
    m_jobs.setState(job, TransferState::Preparing);
}

void TransferScheduler::onFinishAnswer(TransferJob &job, const FinishOutcome &outcome)
{
    job.requestInFlight = false;
    job.setRemotePath(outcome.remotePath.isEmpty() ? job.source().destinationPath() : outcome.remotePath);
    finishJob(job, outcome.skipped ? TransferState::Skipped : TransferState::Done);
}

void TransferScheduler::putBack(TransferJob &job, const InFlight &request)
{
    if (isTerminal(job.state()))
        return;
    switch (request.kind) {
    case RequestKind::Chunk:
        if (request.uploadId == job.uploadId())
            job.addReady({request.chunk, request.checksumHex});
        return;
    case RequestKind::Complete:
        job.requestInFlight = false;
        m_jobs.setState(job, TransferState::Uploading);
        return;
    case RequestKind::Single:
        job.requestInFlight = false;
        m_jobs.setState(job, TransferState::Preparing);
        return;
    case RequestKind::Create:
    case RequestKind::Query:
    case RequestKind::Abort:
        job.requestInFlight = false;
        return;
    }
}

void TransferScheduler::excludeEndpoint(int endpoint, const QString &why)
{
    m_pool.setUp(endpoint, false);
    cancelRequests(-1, endpoint);
    if (m_refusedEndpoints.contains(endpoint))
        return;
    m_refusedEndpoints.insert(endpoint);
    Q_EMIT endpointDown(endpoint, why);
}

void TransferScheduler::markUnreachable(int endpoint, const QString &why)
{
    m_monitor.takeOut(endpoint, why);
    cancelRequests(-1, endpoint);
}

void TransferScheduler::holdUntilChecked(int endpoint)
{
    m_pool.setPending(endpoint, true);
    cancelRequests(-1, endpoint);
}

bool TransferScheduler::waitForCheck(TransferJob &job, const InFlight &request)
{
    const int endpoint = request.lease.endpoint;
    if (!m_pool.isUnchecked(endpoint))
        return false;
    releaseLease(request);
    m_pool.setPending(endpoint, true);
    putBack(job, request);
    return true;
}

void TransferScheduler::refuseEndpoint(TransferJob &job, const InFlight &request,
                                       const ProtocolFailure &failure)
{
    const int endpoint = request.lease.endpoint;
    const bool wasOnline = m_monitor.isOnline();
    m_pool.setUp(endpoint, false); // the monitor only brings back endpoints it took out itself
    if (!m_refusedEndpoints.contains(endpoint)) {
        m_refusedEndpoints.insert(endpoint);
        Q_EMIT endpointDown(endpoint, failure.message);
        if (m_refusedEndpoints.size() == m_pool.endpointCount()) {
            failEverything(failure.message);
            return;
        }
        if (wasOnline && !m_monitor.isOnline())
            onOnlineChanged(false); // the others are out for now: wait for them
    }
    // Sent again elsewhere, costing none of the request's attempts: the credentials were the problem.
    putBack(job, request);
}

void TransferScheduler::onChunkHashed(int jobId, int chunk, const std::optional<QByteArray> &checksumHex)
{
    --m_chunksHashing;
    TransferJob &job = m_jobs.job(jobId);
    if (isTerminal(job.state()))
        return;
    if (!checksumHex) {
        finishJob(
            job, TransferState::Failed,
            QStringLiteral("cannot read %1 (moved, shortened or unreadable)").arg(job.source().localPath()));
        return;
    }
    if (!job.settleHashAhead(chunk, *checksumHex)) { // else kept for the attach, or of another size
        if (job.state() != TransferState::Uploading)
            job.returnToPending(chunk); // the upload is being attached again; its answer decides again
        else
            job.addReady({chunk, *checksumHex});
    }
    pump();
}

void TransferScheduler::onFileHashed(int jobId, const std::optional<FileDigest> &digest)
{
    TransferJob &job = m_jobs.job(jobId);
    if (isTerminal(job.state()))
        return;
    if (!digest) {
        finishJob(job, TransferState::Failed, QStringLiteral("cannot read %1").arg(job.source().localPath()));
        pump();
        return;
    }
    job.setSha256(digest->sha256Hex);
    job.setSourceChunkChecksums(digest->chunkSize, digest->chunkChecksums);
    job.rehashingForHeldChunks = false;
    if (job.waitingForHashToCompare && digest->sha256Hex != job.existingSha256())
        job.waitingForHashToCompare = false; // a different file of the same size: send ours
    checkHeldChunks(job);
    pump();
}

void TransferScheduler::checkHeldChunks(TransferJob &job)
{
    // Size and mtime can stay the same while the bytes change (an editor writing in place, a
    // restored mtime). The server's receipts say what it holds; the whole-file pass said what the
    // source holds now. Any difference is sent again, never stitched.
    if (isTerminal(job.state()) || !job.hasUnverifiedHeldChunks() || job.sha256().isEmpty() ||
        job.rehashingForHeldChunks)
        return;
    if (job.sourceChunkHashSize() != job.planner().chunkSize()) {
        // The server kept the chunk size of an earlier run: checksum the source again in its size.
        job.rehashingForHeldChunks = true;
        m_services.hasher->hashFile(job.id(), job.source().localPath(), job.planner().chunkSize());
        return;
    }
    const QList<int> differing = job.checkHeldChunks();
    if (differing.isEmpty())
        return;
    const QString what = QStringLiteral("%1 changed since its upload started: %2 of the chunks the receiver "
                                        "holds differ from the file now")
                             .arg(job.source().localPath())
                             .arg(differing.size());
    if (!m_options.resendChangedChunks) {
        finishJob(job, TransferState::Failed,
                  what + QStringLiteral("; not resumed (--on-change restart sends the new version)"));
        return;
    }
    m_bytesAcknowledged -= job.acknowledgedBytes();
    for (int index : differing)
        job.unacknowledge(index);
    m_bytesAcknowledged += job.acknowledgedBytes();
    m_dirtyJobs.insert(job.id());
    Q_EMIT warning(job.id(), what + QStringLiteral("; sending those again"));
}

// ---- a cancelled file's upload ----------------------------------------------------------------

void TransferScheduler::abortOnServer(const TransferJob &job)
{
    if (job.uploadId().isEmpty())
        return;
    // Once, on the control lane (no data connection is taken from the pool, none is waited for),
    // to an endpoint that is up. The answer is not read: an abort that is lost leaves the upload
    // to the server's expiry (ours: its upload lifetime; S3: the bucket's lifecycle rules).
    int endpoint = 0;
    while (endpoint + 1 < m_pool.endpointCount() && !m_pool.isUp(endpoint))
        ++endpoint;
    const EndpointLease lease{endpoint, WireTransport::ControlLane};
    WireCall *call =
        m_services.transport->send(lease, m_services.protocol->abort(contextFor(job, lease)).request);
    call->setParent(this); // goes with the scheduler if the answer has not come by then
    connect(call, &WireCall::finished, call, &QObject::deleteLater);
}

} // namespace multilane
