#include "TransferScheduler.h"

#include "RefusalMessage.h"

#include "ChunkHash.h"
#include "FileRangeDevice.h"
#include "NoDelaySockets.h"
#include "TlsTrust.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QRandomGenerator>
#include <climits>
#include <ranges>

namespace multilane {

// Self-tuned: start at 4 connections per endpoint (modest for each receiver, and enough that a
// short upload over several endpoints does not spend its first seconds ramping up).
static ConcurrencyTuner::Options tunerOptionsFor(const EndpointPool &pool, const TransferOptions &options)
{
    ConcurrencyTuner::Options tuning;
    tuning.start = std::min(4 * std::max(1, pool.endpointCount()), options.connections);
    tuning.minimum = 1;
    tuning.maximum = options.connections;
    return tuning;
}

TransferScheduler::TransferScheduler(EndpointPool &pool, const TransferOptions &options, QObject *parent)
    : QObject(parent)
    , m_pool(pool)
    , m_options(options)
    , m_monitor(pool, m_probeManager, options.monitor)
    , m_limiter(options.limitBytesPerSecond)
    , m_scorer(pool.endpointCount())
    , m_tuner(tunerOptionsFor(pool, options))
    , m_connections(options.tuneConnections ? m_tuner.level() : options.connections)
{
    for (int endpoint = 0; endpoint < m_pool.endpointCount(); ++endpoint) {
        QList<QNetworkAccessManager *> lanes;
        for (int lane = 0; lane < m_pool.laneCount(endpoint); ++lane) {
            auto *manager = new QNetworkAccessManager(this);
            manager->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
            TlsTrust::watch(*manager);
            lanes.append(manager);
        }
        m_managers.append(lanes);
    }
    TlsTrust::watch(m_probeManager);
    m_endpointStats = QList<EndpointStats>(m_pool.endpointCount());
    connect(&m_hasher, &HashWorker::chunkHashed, this, &TransferScheduler::onChunkHashed);
    connect(&m_hasher, &HashWorker::fileHashed, this, &TransferScheduler::onFileHashed);
    m_progressTimer.setInterval(m_options.progressIntervalMs);
    connect(&m_progressTimer, &QTimer::timeout, this, &TransferScheduler::emitProgress);
    connect(&m_monitor, &EndpointMonitor::onlineChanged, this, &TransferScheduler::onOnlineChanged);
    connect(&m_monitor, &EndpointMonitor::endpointDown, this, &TransferScheduler::endpointDown);
    connect(&m_monitor, &EndpointMonitor::endpointUp, this, [this](int endpoint) {
        Q_EMIT endpointUp(endpoint);
        pump();
    });
    m_offlineTimer.setSingleShot(true);
    connect(&m_offlineTimer, &QTimer::timeout, this, [this] {
        failEverything(QStringLiteral("no endpoint answered for %1 s (--max-offline); run the upload again "
                                      "when the network is back, it resumes where it stopped")
                           .arg(m_options.maxOfflineMs / 1000));
    });
}

TransferScheduler::~TransferScheduler()
{
    // Replies belong to the managers (our children); stop them before the bookkeeping goes.
    for (auto it = m_inFlight.keyBegin(); it != m_inFlight.keyEnd(); ++it)
        (*it)->disconnect(this);
}

void TransferScheduler::addFiles(const QList<SourceFile> &files)
{
    for (const SourceFile &file : files) {
        m_queue.push_back(int(m_jobs.size()));
        m_jobs.emplace_back(int(m_jobs.size()), file, chunkSizeFor(file));
    }
    if (!m_options.filesInOrder) {
        // Biggest files first, smallest last: the last requests of the upload are then short
        // ones, and connections run out of work together instead of the last big file's chunks
        // queueing behind a few of them (longest-processing-time-first scheduling).
        std::stable_sort(m_queue.begin() + std::ptrdiff_t(m_nextQueued), m_queue.end(), [this](int a, int b) {
            return m_jobs[std::size_t(a)].source().size > m_jobs[std::size_t(b)].source().size;
        });
    }
    if (m_started) {
        if (m_finished)
            m_progressTimer.start(); // it stopped with the last batch: progress must tick again
        m_finished = false;
        pump();
    }
}

void TransferScheduler::adaptTo(const LinkEstimate &estimate)
{
    if (m_options.spreadFilesOverConnections && estimate.chunkSize > 0) {
        m_options.chunkSize = estimate.chunkSize;
        for (std::size_t i = m_nextQueued; i < m_queue.size(); ++i) {
            TransferJob &job = m_jobs[std::size_t(m_queue.at(i))];
            if (job.state() == TransferState::Queued && job.uploadId().isEmpty())
                job.setRequestedChunkSize(chunkSizeFor(job.source()));
        }
    }
    if (m_options.tuneConnections) {
        m_tuner = ConcurrencyTuner(tunerOptionsFor(m_pool, m_options));
        m_connections = m_tuner.level();
        pump();
    }
}

void TransferScheduler::start()
{
    m_started = true;
    m_clock.start();
    m_rate.addSample(0, 0);
    m_progressTimer.start();
    pump();
}

TransferProgress TransferScheduler::progress() const
{
    TransferProgress progress;
    progress.filesTotal = int(m_jobs.size());
    for (const TransferJob &job : m_jobs) {
        progress.bytesTotal += job.source().size;
        if (job.state() == TransferState::Done)
            ++progress.filesDone;
        else if (job.state() == TransferState::Skipped)
            ++progress.filesSkipped;
        else if (job.state() == TransferState::Failed)
            ++progress.filesFailed;
    }
    progress.bytesDone = m_bytesAcknowledged + m_bytesInFlight;
    progress.bytesSent = m_bytesSent;
    progress.elapsedMs = m_clock.isValid() ? m_clock.elapsed() : 0;
    progress.bytesPerSecond = m_rate.bytesPerSecond(progress.elapsedMs);
    progress.online = m_monitor.isOnline();
    progress.paused = m_paused;
    return progress;
}

void TransferScheduler::emitProgress()
{
    const qint64 now = m_clock.elapsed();
    m_rate.addSample(now, m_bytesSent);
    if (m_options.tuneConnections && m_started && !m_paused && m_monitor.isOnline()) {
        // Bytes sent, not acknowledged: acknowledgements come a chunk at a time, too lumpy to
        // compare one short window with the next.
        accountBusySlots();
        const int level = m_tuner.update({now, m_bytesSent, m_failures, m_busySlotMs});
        if (level != m_connections) {
            m_connections = level;
            pump();
        }
    }
    if (!m_dirtyJobs.isEmpty()) {
        QList<int> changed(m_dirtyJobs.begin(), m_dirtyJobs.end());
        std::sort(changed.begin(), changed.end());
        m_dirtyJobs.clear();
        Q_EMIT jobsChanged(changed);
    }
    Q_EMIT progressChanged(progress());
}

qint64 TransferScheduler::jobBytesDone(int id) const
{
    const TransferJob &job = m_jobs.at(std::size_t(id));
    return std::min(job.source().size, job.acknowledgedBytes() + job.bytesInFlight());
}

// ---- choosing the next piece of work --------------------------------------------------------

void TransferScheduler::pump()
{
    if (m_pumping || !m_started || m_paused)
        return;
    m_pumping = true;
    activateQueuedJobs();
    startChunkHashing();
    while (m_inFlight.size() < m_connections) {
        const std::optional<EndpointLease> lease = m_pool.acquire();
        if (!lease)
            break;
        if (!dispatchNext(*lease)) {
            m_pool.release(*lease);
            break;
        }
    }
    startChunkHashing();
    m_pumping = false;

    if (!m_finished && m_active.isEmpty() && m_retryQueue.isEmpty() && m_nextQueued >= m_queue.size()) {
        m_finished = true;
        m_progressTimer.stop();
        emitProgress(); // the final 100% always goes out
        Q_EMIT finished();
    }
}

void TransferScheduler::activateQueuedJobs()
{
    // Enough open files that every connection has work even when files are tiny, but bounded
    // so a folder of 100 000 files does not open 100 000 uploads at once.
    const int maxActive = std::max(4, m_options.connections * 2);
    while (m_active.size() < maxActive && (!m_retryQueue.isEmpty() || m_nextQueued < m_queue.size())) {
        TransferJob &job = m_jobs[std::size_t(!m_retryQueue.isEmpty() ? m_retryQueue.takeFirst()
                                                                      : m_queue.at(m_nextQueued++))];
        if (job.state() != TransferState::Queued)
            continue; // cancelled before it started
        job.setState(TransferState::Preparing);
        job.needsCreate = !job.planner().isSingleRequest();
        m_active.append(job.id());
        // Chunked files get per-chunk hashes in the same pass, to check what a receiver holds.
        m_hasher.hashFile(job.id(), job.source().localPath,
                          job.planner().isSingleRequest() ? 0 : job.planner().chunkSize());
        Q_EMIT fileStarted(job.id());
    }
}

qint64 TransferScheduler::chunkSizeFor(const SourceFile &file) const
{
    qint64 chunk = m_options.chunkSize;
    if (m_limiter.isLimited())
        chunk = std::min(chunk, std::max(ChunkPlanner::MinChunkSize, m_limiter.maxChunkFor()));
    if (m_options.spreadFilesOverConnections) {
        // Enough chunks for every connection several times over, so the tail of a file does not
        // leave most connections idle; powers of two keep chunks block-aligned.
        // Floored at 1 MiB and counted against at most 12 connections: with a cap of 48 the rule
        // once cut a 5 MB file into 64 KiB chunks, all request overhead (mixed workload, 42 %).
        // It applies below the chunk size too: an 8 MB file sent in one request rides a single
        // connection, 4 s at a 2 MB/s per-connection cap, while 1 MiB chunks take 0.5 s (link
        // (a)'s mixed workload went from 61 % to 87 % of the link). 8 pieces per connection, not
        // 4: the last round of chunks is shorter (link (a)'s 200 MiB file: 82 % -> 96 %).
        const qint64 spread = file.size / (8 * std::clamp(m_options.connections, 1, 12));
        qint64 rounded = 1024 * 1024;
        while (rounded * 2 <= spread)
            rounded *= 2;
        chunk = std::min(chunk, rounded);
    }
    return chunk;
}

bool TransferScheduler::mayPushData()
{
    const qint64 now = m_clock.elapsed();
    if (m_limiter.mayStart(now))
        return true;
    if (!m_limiterWakeScheduled) {
        m_limiterWakeScheduled = true;
        QTimer::singleShot(int(m_limiter.msUntilAllowed(now)), this, [this] {
            m_limiterWakeScheduled = false;
            pump();
        });
    }
    return false;
}

TransferJob *TransferScheduler::nextJobWith(bool (*wants)(const TransferJob &), Pick pick)
{
    // Round-robin over the open files: each call starts after the file served last. With
    // --order files, always the earliest file that has work.
    const bool earliest = pick == Pick::Earliest || m_options.filesInOrder;
    const int count = int(m_active.size());
    for (int step = 0; step < count; ++step) {
        const int position = earliest ? step : (m_roundRobin + step) % count;
        TransferJob &job = m_jobs[std::size_t(m_active.at(position))];
        if (!job.paused && wants(job)) {
            m_roundRobin = (position + 1) % count;
            return &job;
        }
    }
    return nullptr;
}

static bool wantsChunkHash(const TransferJob &job)
{
    return job.state() == TransferState::Uploading && job.hasPendingChunk() && !job.waitingForHashToCompare;
}

void TransferScheduler::startChunkHashing()
{
    // Hash a little ahead of the connections so a freed connection never waits for a checksum.
    int readyOrHashing = m_chunksHashing;
    for (int id : std::as_const(m_active))
        readyOrHashing += m_jobs[std::size_t(id)].readyCount();
    while (readyOrHashing < m_connections + 2) {
        TransferJob *job = nextJobWith(wantsChunkHash);
        if (!job)
            break;
        const ChunkRange range = job->planner().chunk(job->takePendingChunk());
        m_hasher.hashChunk(job->id(), range.index, job->source().localPath, range.offset, range.length);
        ++m_chunksHashing;
        ++readyOrHashing;
    }
}

bool TransferScheduler::dispatchNext(const EndpointLease &lease)
{
    // Finishing files first keeps the number of half-done files (and server state) small.
    if (TransferJob *job = nextJobWith([](const TransferJob &j) {
            return j.state() == TransferState::Uploading && !j.requestInFlight && j.allChunksAcknowledged() &&
                   !j.sha256().isEmpty() && !j.waitingForHashToCompare && !j.hasUnverifiedHeldChunks();
        })) {
        sendComplete(*job, lease);
        return true;
    }
    if (TransferJob *job = nextJobWith([](const TransferJob &j) {
            return j.state() == TransferState::Uploading && !j.requestInFlight && j.waitingForHashToCompare &&
                   !j.sha256().isEmpty() && j.sha256() == j.existingSha256;
        })) {
        sendAbort(*job, lease);
        return true;
    }
    const bool pushData = mayPushData();
    if (m_options.filesInOrder) {
        // Within each kind of request, the earliest file that has one.
        return (pushData && dispatchSingle(lease)) || (pushData && dispatchChunk(lease)) ||
               dispatchCreate(lease);
    }
    // Throughput: creates first (a round trip that unlocks a file's chunks), then chunks, and
    // whole small files only when no chunk is ready, biggest first, so the last requests of an
    // upload are short ones and every connection runs out of work at about the same time.
    return dispatchCreate(lease) || (pushData && dispatchChunk(lease)) || (pushData && dispatchSingle(lease));
}

bool TransferScheduler::dispatchCreate(const EndpointLease &lease)
{
    TransferJob *job = nextJobWith([](const TransferJob &j) {
        return j.state() == TransferState::Preparing && j.needsCreate && !j.requestInFlight;
    });
    if (job)
        sendCreate(*job, lease);
    return job != nullptr;
}

bool TransferScheduler::dispatchChunk(const EndpointLease &lease)
{
    TransferJob *job = nextJobWith([](const TransferJob &j) {
        return j.state() == TransferState::Uploading && j.hasReadyChunk() && !j.waitingForHashToCompare;
    });
    if (!job)
        return false;
    const ReadyChunk chunk = job->takeReadyChunk();
    m_limiter.consume(job->planner().chunk(chunk.index).length, m_clock.elapsed());
    sendChunk(*job, chunk, lease);
    return true;
}

bool TransferScheduler::dispatchSingle(const EndpointLease &lease)
{
    // The earliest open file: with --order files the first given, otherwise the biggest.
    TransferJob *job = nextJobWith(
        [](const TransferJob &j) {
            return j.state() == TransferState::Preparing && !j.requestInFlight && !j.needsCreate &&
                   !j.sha256().isEmpty();
        },
        Pick::Earliest);
    if (!job)
        return false;
    m_limiter.consume(job->source().size, m_clock.elapsed());
    sendSingle(*job, lease);
    return true;
}

// ---- requests --------------------------------------------------------------------------------

void TransferScheduler::accountBusySlots()
{
    const qint64 now = m_clock.elapsed();
    m_busySlotMs += qint64(m_inFlight.size()) * (now - m_busySlotsSinceMs);
    m_busySlotsSinceMs = now;
}

void TransferScheduler::track(QNetworkReply *reply, const InFlight &request)
{
    accountBusySlots();
    NoDelaySockets::watch(reply);
    InFlight &tracked = *m_inFlight.insert(reply, request);
    tracked.startedMs = m_clock.elapsed();
    connect(reply, &QNetworkReply::finished, this, [this, reply] { onReplyFinished(reply); });
    if (request.kind == RequestKind::Chunk || request.kind == RequestKind::Single) {
        connect(reply, &QNetworkReply::uploadProgress, this, [this, reply](qint64 sent, qint64) {
            auto it = m_inFlight.find(reply);
            if (it == m_inFlight.end() || sent <= it->sent)
                return;
            m_bytesInFlight += sent - it->sent;
            m_bytesSent += sent - it->sent;
            m_jobs[std::size_t(it->job)].addBytesInFlight(sent - it->sent);
            m_dirtyJobs.insert(it->job);
            it->sent = sent;
        });
    }
}

void TransferScheduler::sendCreate(TransferJob &job, const EndpointLease &lease)
{
    QJsonObject body{{QStringLiteral("path"), job.source().destinationPath},
                     {QStringLiteral("size"), job.source().size},
                     {QStringLiteral("mtime"), job.source().mtimeMs},
                     {QStringLiteral("chunkSize"), job.planner().chunkSize()},
                     {QStringLiteral("onConflict"), onConflictName(m_options.onConflict)}};
    if (!job.sha256().isEmpty())
        body.insert(QStringLiteral("sha256"), QString::fromLatin1(job.sha256()));
    QNetworkRequest request = ReceiverApi::request(m_pool.endpoint(lease.endpoint),
                                                   ReceiverApi::createRoute(), m_options.transferTimeoutMs);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    job.requestInFlight = true;
    QNetworkReply *reply = m_managers[lease.endpoint][lease.lane]->post(
        request, QJsonDocument(body).toJson(QJsonDocument::Compact));
    track(reply, {RequestKind::Create, job.id(), -1, 0, {}, lease});
}

void TransferScheduler::sendChunk(TransferJob &job, const ReadyChunk &chunk, const EndpointLease &lease)
{
    const ChunkRange range = job.planner().chunk(chunk.index);
    auto *body = new FileRangeDevice(job.source().localPath, range.offset, range.length);
    if (!body->open(QIODevice::ReadOnly)) {
        const QString why = body->errorString();
        delete body;
        m_pool.release(lease); // not sent: give the connection back (pump holds no lease for it)
        finishJob(job, TransferState::Failed,
                  QStringLiteral("cannot read %1: %2").arg(job.source().localPath, why));
        return;
    }
    QNetworkRequest request = ReceiverApi::request(m_pool.endpoint(lease.endpoint),
                                                   ReceiverApi::chunkRoute(job.uploadId(), chunk.index),
                                                   m_options.transferTimeoutMs);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/octet-stream"));
    request.setHeader(QNetworkRequest::ContentLengthHeader, range.length);
    request.setRawHeader("X-Chunk-Hash", ChunkHash::toHeader(chunk.hash));
    QNetworkReply *reply = m_managers[lease.endpoint][lease.lane]->put(request, body);
    body->setParent(reply);
    track(reply, {RequestKind::Chunk, job.id(), chunk.index, chunk.hash, job.uploadId(), lease});
}

void TransferScheduler::sendComplete(TransferJob &job, const EndpointLease &lease)
{
    if (sourceChanged(job)) {
        m_pool.release(lease);
        finishJob(job, TransferState::Failed,
                  QStringLiteral("%1 changed while it was being sent; run the upload again to send the new "
                                 "version")
                      .arg(job.source().localPath));
        return;
    }
    job.setState(TransferState::Completing);
    job.requestInFlight = true;
    QNetworkRequest request =
        ReceiverApi::request(m_pool.endpoint(lease.endpoint), ReceiverApi::completeRoute(job.uploadId()),
                             m_options.transferTimeoutMs);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    const QJsonObject body{{QStringLiteral("sha256"), QString::fromLatin1(job.sha256())}};
    QNetworkReply *reply = m_managers[lease.endpoint][lease.lane]->post(
        request, QJsonDocument(body).toJson(QJsonDocument::Compact));
    track(reply, {RequestKind::Complete, job.id(), -1, 0, job.uploadId(), lease});
}

void TransferScheduler::sendSingle(TransferJob &job, const EndpointLease &lease)
{
    auto *body = new FileRangeDevice(job.source().localPath, 0, job.source().size);
    if (!body->open(QIODevice::ReadOnly)) {
        const QString why = body->errorString();
        delete body;
        m_pool.release(lease);
        finishJob(job, TransferState::Failed,
                  QStringLiteral("cannot read %1: %2").arg(job.source().localPath, why));
        return;
    }
    QNetworkRequest request = ReceiverApi::request(m_pool.endpoint(lease.endpoint),
                                                   ReceiverApi::filesRoute(job.source().destinationPath),
                                                   m_options.transferTimeoutMs);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/octet-stream"));
    request.setHeader(QNetworkRequest::ContentLengthHeader, job.source().size);
    request.setRawHeader("X-Content-SHA256", job.sha256());
    request.setRawHeader("X-Multilane-On-Conflict", onConflictName(m_options.onConflict).toLatin1());
    job.setState(TransferState::Uploading);
    job.requestInFlight = true;
    QNetworkReply *reply = m_managers[lease.endpoint][lease.lane]->put(request, body);
    body->setParent(reply);
    track(reply, {RequestKind::Single, job.id(), -1, 0, {}, lease});
}

void TransferScheduler::sendAbort(TransferJob &job, const EndpointLease &lease)
{
    job.requestInFlight = true;
    QNetworkRequest request =
        ReceiverApi::request(m_pool.endpoint(lease.endpoint), ReceiverApi::uploadRoute(job.uploadId()),
                             m_options.transferTimeoutMs);
    QNetworkReply *reply = m_managers[lease.endpoint][lease.lane]->deleteResource(request);
    track(reply, {RequestKind::Abort, job.id(), -1, 0, job.uploadId(), lease});
}

// ---- answers ---------------------------------------------------------------------------------

void TransferScheduler::onReplyFinished(QNetworkReply *reply)
{
    accountBusySlots();
    const InFlight request = m_inFlight.take(reply);
    m_pool.release(request.lease);
    m_bytesInFlight -= request.sent;
    m_jobs[std::size_t(request.job)].addBytesInFlight(-request.sent);
    m_dirtyJobs.insert(request.job);
    TransferJob &job = m_jobs[std::size_t(request.job)];
    if (request.cancelled) {
        reply->deleteLater();
        onCancelled(job, request);
        pump();
        return;
    }
    const ApiReply answer = ReceiverApi::read(reply);
    EndpointStats &stats = m_endpointStats[request.lease.endpoint];
    const bool carriedData = request.kind == RequestKind::Chunk || request.kind == RequestKind::Single;
    if (answer.error) {
        ++stats.failures;
        ++m_failures;
        if (carriedData)
            m_scorer.recordFailure(request.lease.endpoint);
        if (answer.error->httpStatus == 0)
            m_monitor.recordNetworkFailure(request.lease.endpoint);
    } else {
        m_monitor.recordSuccess(request.lease.endpoint);
        if (carriedData) {
            ++stats.chunks;
            stats.bytes += request.sent;
            m_scorer.recordSuccess(request.lease.endpoint, request.sent,
                                   m_clock.elapsed() - request.startedMs);
        }
    }
    if (carriedData && m_options.scoreEndpoints) {
        // Scores are relative to the best endpoint, so one measurement can move them all.
        for (int endpoint = 0; endpoint < m_pool.endpointCount(); ++endpoint)
            m_pool.setScore(endpoint, m_scorer.weight(endpoint));
    }

    if (answer.error && RefusalMessage::isBadToken(*answer.error) && request.kind != RequestKind::Abort) {
        refuseEndpoint(job, request, *answer.error);
    } else if (request.kind == RequestKind::Chunk) {
        onChunkReply(job, request, answer);
    } else if (!isTerminal(job.state())) {
        job.requestInFlight = false;
        if (answer.error && answer.error->isRetriable() && request.kind != RequestKind::Abort) {
            if (request.kind == RequestKind::Complete)
                job.setState(TransferState::Uploading);
            if (request.kind == RequestKind::Single)
                job.setState(TransferState::Preparing);
            retryJobLater(job, describe(*answer.error, request.lease));
        } else if (request.kind == RequestKind::Create) {
            onCreateReply(job, answer, request.lease);
        } else if (request.kind == RequestKind::Complete) {
            onCompleteReply(job, answer, request.lease);
        } else if (request.kind == RequestKind::Single) {
            onSingleReply(job, answer, request.lease);
        } else {
            finishJob(job, TransferState::Skipped);
        }
    }
    pump();
}

static QList<int> intList(const QJsonValue &value)
{
    QList<int> list;
    for (const QJsonValue &item : value.toArray())
        list.append(item.toInt(-1));
    return list;
}

void TransferScheduler::onCreateReply(TransferJob &job, const ApiReply &reply, const EndpointLease &lease)
{
    if (reply.error) {
        failOnRefusal(job, *reply.error, lease);
        return;
    }
    const QString status = reply.body.value(QLatin1String("status")).toString();
    job.setRemotePath(reply.body.value(QLatin1String("path")).toString());
    if (status == QLatin1String("done") || status == QLatin1String("skipped")) {
        // "done": an earlier run already finished this very file (same path, size and mtime).
        job.setSha256(reply.body.value(QLatin1String("sha256")).toString().toLatin1());
        finishJob(job, TransferState::Skipped);
        return;
    }
    const QString id = reply.body.value(QLatin1String("id")).toString();
    const qint64 chunkSize = reply.body.value(QLatin1String("chunkSize")).toInteger();
    if (id.isEmpty() || chunkSize < 1) {
        finishJob(job, TransferState::Failed,
                  QStringLiteral("the receiver's answer to create has no upload id"));
        return;
    }
    m_bytesAcknowledged -= job.acknowledgedBytes();
    QList<std::uint64_t> receivedHashes;
    for (const QJsonValue &hash : reply.body.value(QLatin1String("receivedHashes")).toArray())
        receivedHashes.append(hash.toString().toULongLong(nullptr, 16));
    job.attachUpload(id, chunkSize, intList(reply.body.value(QLatin1String("received"))), receivedHashes);
    m_bytesAcknowledged += job.acknowledgedBytes();
    job.needsCreate = false;
    Q_EMIT uploadAttached(job.id());
    const QJsonObject existing = reply.body.value(QLatin1String("existing")).toObject();
    job.existingSha256 = existing.value(QLatin1String("sha256")).toString().toLatin1();
    // Same size as a file already there: hold the chunks until our hash says whether it is ours.
    job.waitingForHashToCompare =
        !job.existingSha256.isEmpty() && (job.sha256().isEmpty() || job.sha256() == job.existingSha256);
    job.setState(TransferState::Uploading);
    checkHeldChunks(job);
}

void TransferScheduler::onChunkReply(TransferJob &job, const InFlight &request, const ApiReply &reply)
{
    if (isTerminal(job.state()) || request.uploadId != job.uploadId())
        return; // an answer for an upload this job no longer uses
    if (!reply.error) {
        const qint64 before = job.acknowledgedBytes();
        job.acknowledge(request.chunk);
        m_bytesAcknowledged += job.acknowledgedBytes() - before;
        Q_EMIT chunkAcknowledged(job.id(), request.chunk);
        return;
    }
    const ApiError &error = *reply.error;
    if (error.code == QLatin1String("no_such_upload")) {
        // Expired or aborted on the receiver: create it again; held chunks come back in the answer.
        job.returnToPending(request.chunk);
        job.needsCreate = true;
        job.setState(TransferState::Preparing);
        return;
    }
    // No answer at all is the endpoint's fault, not the chunk's: it does not use up the chunk's
    // attempts (the circuit breaker and --max-offline bound that wait instead).
    const int attempts = error.httpStatus == 0 ? 1 : job.bumpChunkAttempts(request.chunk);
    if (!error.isRetriable() || attempts >= m_options.maxAttempts) {
        job.returnToPending(request.chunk);
        finishJob(job, TransferState::Failed,
                  QStringLiteral("chunk %1 failed after %2 attempts: %3")
                      .arg(request.chunk)
                      .arg(attempts)
                      .arg(describe(error, request.lease)),
                  error.isWorthResumingLater());
        return;
    }
    // A corrupted chunk is re-read and re-hashed; anything else keeps its checksum.
    const bool rehash = error.code == QLatin1String("checksum_mismatch");
    const int jobId = job.id();
    const QString uploadId = job.uploadId();
    const ReadyChunk again{request.chunk, request.chunkHash};
    QTimer::singleShot(rehash ? 0 : retryDelayMs(attempts), this, [this, jobId, uploadId, again, rehash] {
        TransferJob &retried = m_jobs[std::size_t(jobId)];
        if (isTerminal(retried.state()) || retried.uploadId() != uploadId)
            return;
        if (rehash)
            retried.returnToPending(again.index);
        else
            retried.addReady(again);
        pump();
    });
}

void TransferScheduler::onCompleteReply(TransferJob &job, const ApiReply &reply, const EndpointLease &lease)
{
    if (!reply.error) {
        job.setRemotePath(reply.body.value(QLatin1String("path")).toString(job.remotePath()));
        const bool skipped = reply.body.value(QLatin1String("status")).toString() == QLatin1String("skipped");
        finishJob(job, skipped ? TransferState::Skipped : TransferState::Done);
        return;
    }
    const ApiError &error = *reply.error;
    if (error.code == QLatin1String("incomplete") || error.code == QLatin1String("no_such_upload") ||
        error.code == QLatin1String("checksum_mismatch")) {
        // The receiver lacks chunks (or reset them after a bad whole-file hash): ask it again
        // what it holds and send the rest, a bounded number of times.
        if (job.bumpAttempts() >= m_options.maxAttempts) {
            finishJob(job, TransferState::Failed,
                      QStringLiteral("the receiver could not verify the file: %1").arg(error.message));
            return;
        }
        job.needsCreate = true;
        job.setState(TransferState::Preparing);
        return;
    }
    failOnRefusal(job, error, lease);
}

void TransferScheduler::onSingleReply(TransferJob &job, const ApiReply &reply, const EndpointLease &lease)
{
    if (reply.error) {
        failOnRefusal(job, *reply.error, lease);
        return;
    }
    job.setRemotePath(reply.body.value(QLatin1String("path")).toString(job.source().destinationPath));
    const bool skipped = reply.body.value(QLatin1String("status")).toString() == QLatin1String("skipped");
    finishJob(job, skipped ? TransferState::Skipped : TransferState::Done);
}

void TransferScheduler::onChunkHashed(int jobId, int chunk, std::optional<std::uint64_t> hash)
{
    --m_chunksHashing;
    TransferJob &job = m_jobs[std::size_t(jobId)];
    if (isTerminal(job.state()))
        return;
    if (!hash) {
        finishJob(
            job, TransferState::Failed,
            QStringLiteral("cannot read %1 (moved, shortened or unreadable)").arg(job.source().localPath));
        return;
    }
    if (job.state() != TransferState::Uploading) {
        job.returnToPending(chunk); // the upload is being re-created; its answer decides again
    } else {
        job.addReady({chunk, *hash});
    }
    pump();
}

void TransferScheduler::onFileHashed(int jobId, const std::optional<FileDigest> &digest)
{
    TransferJob &job = m_jobs[std::size_t(jobId)];
    if (isTerminal(job.state()))
        return;
    if (!digest) {
        finishJob(job, TransferState::Failed, QStringLiteral("cannot read %1").arg(job.source().localPath));
        pump();
        return;
    }
    job.setSha256(digest->sha256Hex);
    job.setSourceChunkHashes(digest->chunkSize, digest->chunkHashes);
    job.rehashingForHeldChunks = false;
    if (job.waitingForHashToCompare && digest->sha256Hex != job.existingSha256)
        job.waitingForHashToCompare = false; // a different file of the same size: send ours
    checkHeldChunks(job);
    pump();
}

void TransferScheduler::checkHeldChunks(TransferJob &job)
{
    // Size and mtime can stay the same while the bytes change (an editor writing in place, a
    // restored mtime). The receiver's per-chunk XXH3 says what it holds; the whole-file hash pass
    // said what the source holds now. Any difference is sent again, never stitched.
    if (isTerminal(job.state()) || !job.hasUnverifiedHeldChunks() || job.sha256().isEmpty() ||
        job.rehashingForHeldChunks)
        return;
    if (job.sourceChunkHashSize() != job.planner().chunkSize()) {
        // The receiver kept the chunk size of an earlier run: hash the source again in its size.
        job.rehashingForHeldChunks = true;
        m_hasher.hashFile(job.id(), job.source().localPath, job.planner().chunkSize());
        return;
    }
    const QList<int> differing = job.checkHeldChunks();
    if (differing.isEmpty())
        return;
    const QString what = QStringLiteral("%1 changed since its upload started: %2 of the chunks the receiver "
                                        "holds differ from the file now")
                             .arg(job.source().localPath)
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

// ---- bookkeeping -----------------------------------------------------------------------------

void TransferScheduler::retryJobLater(TransferJob &job, const QString &what)
{
    const int attempts = job.bumpAttempts();
    if (attempts >= m_options.maxAttempts && m_monitor.isOnline()) {
        finishJob(job, TransferState::Failed,
                  QStringLiteral("gave up after %1 attempts: %2").arg(attempts).arg(what), true);
        return;
    }
    job.requestInFlight = true; // nothing else for this job until the delay is over
    const int jobId = job.id();
    QTimer::singleShot(retryDelayMs(attempts), this, [this, jobId] {
        m_jobs[std::size_t(jobId)].requestInFlight = false;
        pump();
    });
}

void TransferScheduler::finishJob(TransferJob &job, TransferState state, const QString &error, bool resumable)
{
    if (state != TransferState::Failed) {
        // Whatever path it took (chunks, one request, found identical), the file now counts whole.
        m_bytesAcknowledged += job.source().size - job.acknowledgedBytes();
        job.markAllAcknowledged();
    }
    job.setState(state);
    job.setError(error);
    job.setResumable(state == TransferState::Failed && resumable);
    m_dirtyJobs.insert(job.id());
    job.requestInFlight = false;
    m_active.removeOne(job.id());
    if (m_roundRobin >= m_active.size())
        m_roundRobin = 0;
    Q_EMIT fileFinished(job.id());
}

// ---- pause, offline ----------------------------------------------------------------------------

void TransferScheduler::pause()
{
    if (m_paused)
        return;
    m_paused = true;
    cancelRequests(-1);
    for (QNetworkAccessManager *manager : std::as_const(m_managers) | std::views::join)
        manager->clearConnectionCache();
    emitProgress();
}

void TransferScheduler::resume()
{
    if (!m_paused)
        return;
    m_paused = false;
    emitProgress();
    pump();
}

void TransferScheduler::setJobPaused(int id, bool paused)
{
    TransferJob &job = m_jobs[std::size_t(id)];
    if (job.paused == paused || isTerminal(job.state()))
        return;
    job.paused = paused;
    if (paused)
        cancelRequests(id);
    pump();
}

void TransferScheduler::cancelJob(int id)
{
    TransferJob &job = m_jobs[std::size_t(id)];
    if (isTerminal(job.state()))
        return;
    cancelRequests(id);
    if (job.state() == TransferState::Queued) {
        // Not started: take it out of the queue's way by finishing it where it stands.
        m_active.append(id);
    }
    m_retryQueue.removeAll(id);
    finishJob(job, TransferState::Cancelled, QStringLiteral("cancelled"));
    pump();
}

void TransferScheduler::retryJob(int id)
{
    TransferJob &job = m_jobs[std::size_t(id)];
    if (job.state() != TransferState::Failed && job.state() != TransferState::Cancelled)
        return;
    m_bytesAcknowledged -= job.acknowledgedBytes();
    job.resetForRetry();
    m_dirtyJobs.insert(id);
    m_retryQueue.append(id);
    if (m_finished && m_started) {
        m_finished = false;
        m_progressTimer.start();
    }
    pump();
}

void TransferScheduler::cancelRequests(int jobId)
{
    QList<QNetworkReply *> replies;
    for (auto it = m_inFlight.begin(); it != m_inFlight.end(); ++it) {
        if (jobId < 0 || it->job == jobId) {
            it->cancelled = true;
            replies.append(it.key());
        }
    }
    for (QNetworkReply *reply : std::as_const(replies))
        reply->abort(); // finished() arrives, synchronously, and onCancelled puts the work back
}

void TransferScheduler::onCancelled(TransferJob &job, const InFlight &request)
{
    if (isTerminal(job.state()))
        return;
    if (request.kind == RequestKind::Chunk) {
        if (request.uploadId == job.uploadId())
            job.addReady({request.chunk, request.chunkHash});
        return;
    }
    job.requestInFlight = false;
    if (request.kind == RequestKind::Complete)
        job.setState(TransferState::Uploading);
    else if (request.kind == RequestKind::Single)
        job.setState(TransferState::Preparing);
}

void TransferScheduler::onOnlineChanged(bool online)
{
    if (online) {
        m_offlineTimer.stop();
    } else if (m_options.maxOfflineMs > 0) {
        m_offlineTimer.start(int(std::min<qint64>(m_options.maxOfflineMs, INT_MAX)));
    }
    emitProgress();
    Q_EMIT onlineChanged(online);
    pump();
}

void TransferScheduler::failEverything(const QString &why)
{
    cancelRequests(-1);
    while (m_nextQueued < m_queue.size())
        m_active.append(m_queue.at(m_nextQueued++));
    m_active += m_retryQueue;
    m_retryQueue.clear();
    const QList<int> active = m_active;
    for (int id : active) {
        if (!isTerminal(m_jobs[std::size_t(id)].state()))
            finishJob(m_jobs[std::size_t(id)], TransferState::Failed, why, true);
    }
    m_active.clear(); // including files cancelled before they started
    pump();
}

bool TransferScheduler::sourceChanged(const TransferJob &job) const
{
    const QFileInfo info(job.source().localPath);
    return !info.exists() || info.size() != job.source().size ||
           info.lastModified().toMSecsSinceEpoch() != job.source().mtimeMs;
}

int TransferScheduler::retryDelayMs(int attempt) const
{
    // Exponential backoff with full jitter, capped, so many clients do not retry in lockstep.
    const qint64 ceiling =
        std::min<qint64>(30000, qint64(m_options.retryBaseDelayMs) << std::min(attempt, 10));
    return int(ceiling / 2 + QRandomGenerator::global()->bounded(ceiling / 2 + 1));
}

QString TransferScheduler::describe(const ApiError &error, const EndpointLease &lease) const
{
    return RefusalMessage::explain(error, m_pool.endpoint(lease.endpoint).displayName());
}

void TransferScheduler::failOnRefusal(TransferJob &job, const ApiError &error, const EndpointLease &lease)
{
    finishJob(job, TransferState::Failed, describe(error, lease), error.isWorthResumingLater());
}

void TransferScheduler::refuseEndpoint(TransferJob &job, const InFlight &request, const ApiError &error)
{
    const int endpoint = request.lease.endpoint;
    const QString why = describe(error, request.lease);
    const bool wasOnline = m_monitor.isOnline();
    m_pool.setUp(endpoint, false); // the monitor only brings back endpoints it took out itself
    if (!m_refusedEndpoints.contains(endpoint)) {
        m_refusedEndpoints.insert(endpoint);
        Q_EMIT endpointDown(endpoint, why);
        if (m_refusedEndpoints.size() == m_pool.endpointCount()) {
            failEverything(why);
            return;
        }
        if (wasOnline && !m_monitor.isOnline())
            onOnlineChanged(false); // the others are out for now: wait for them
    }
    if (isTerminal(job.state()))
        return;
    // Sent again elsewhere, costing none of the request's attempts: the token was the problem.
    switch (request.kind) {
    case RequestKind::Chunk:
        if (request.uploadId == job.uploadId())
            job.addReady({request.chunk, request.chunkHash});
        break;
    case RequestKind::Complete:
        job.requestInFlight = false;
        job.setState(TransferState::Uploading);
        break;
    case RequestKind::Single:
        job.requestInFlight = false;
        job.setState(TransferState::Preparing);
        break;
    case RequestKind::Create:
    case RequestKind::Abort:
        job.requestInFlight = false;
        break;
    }
}

} // namespace multilane
