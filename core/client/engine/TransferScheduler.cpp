#include "TransferScheduler.h"

#include "LocalFileStat.h"

#include <QLoggingCategory>
#include <algorithm>
#include <climits>
#include <utility>

// QT_LOGGING_RULES="multilane.tuner.debug=true" shows each of the tuner's decisions.
Q_LOGGING_CATEGORY(lcTuner, "multilane.tuner", QtWarningMsg)
// Every progress tick's figures, for a benchmark's trace of an upload over time.
Q_LOGGING_CATEGORY(lcTicks, "multilane.ticks", QtWarningMsg)

namespace multilane {

// Self-tuned: start where ConcurrencyTuner::startingLevel says for the round trip: a few per
// endpoint on a LAN (a few fill it; modest for each receiver), more across a path, where
// per-connection limits (a shaper, a window, loss) are the rule: a short upload there is over
// before a search from fewer reaches the level.
ConcurrencyTuner::Options TransferScheduler::tunerOptionsFor(const EndpointPool &pool,
                                                             const TransferOptions &options, double rttMs)
{
    ConcurrencyTuner::Options tuning;
    tuning.start =
        std::min(ConcurrencyTuner::startingLevel(rttMs, pool.endpointCount()), options.connections);
    if (options.startLevel > 0)
        tuning.start = std::clamp(options.startLevel, 1, std::max(1, options.connections));
    tuning.initialRttMs = rttMs > 0 ? rttMs : tuning.initialRttMs;
    tuning.minimum = 1;
    tuning.maximum = options.connections;
    return tuning;
}

static TransferServices completed(TransferServices services, const EndpointPool &pool,
                                  const TransferOptions &options)
{
    services.completeFor(pool, options.transferTimeoutMs);
    return services;
}

TransferScheduler::TransferScheduler(EndpointPool &pool, const TransferOptions &options,
                                     TransferServices services, QObject *parent)
    : QObject(parent)
    , m_pool(pool)
    , m_options(options)
    , m_services(completed(std::move(services), pool, options))
    , m_monitor(pool, *m_services.protocol, *m_services.transport, options.monitor)
    , m_jobs(options.filesInOrder)
    , m_limiter(options.limitBytesPerSecond)
    , m_scorer(pool.endpointCount())
    , m_tuner(tunerOptionsFor(pool, options, 0))
    , m_connections(options.tuneConnections ? m_tuner.level() : options.connections)
    , m_fixedConnections(options.connections)
{
    m_endpointStats = QList<EndpointStats>(m_pool.endpointCount());
    connect(m_services.hasher.get(), &ChunkHasher::chunkHashed, this, &TransferScheduler::onChunkHashed);
    connect(m_services.hasher.get(), &ChunkHasher::fileHashed, this, &TransferScheduler::onFileHashed);
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
    // Calls belong to us; stop their signals before the bookkeeping goes.
    for (auto it = m_inFlight.keyBegin(); it != m_inFlight.keyEnd(); ++it) {
        (*it)->disconnect(this);
        delete *it;
    }
    // The servers' aborts still out (abortOnServer) go before the transport, a member that
    // QObject's own destructor would outlive.
    qDeleteAll(findChildren<WireCall *>(Qt::FindDirectChildrenOnly));
}

void TransferScheduler::addFiles(const QList<SourceFile> &files, const QList<KnownUpload> &known)
{
    m_jobs.reserve(files.size());
    for (qsizetype i = 0; i < files.size(); ++i) {
        const int id = m_jobs.add(files.at(i), chunkSizeFor(files.at(i)));
        if (i < known.size() && !known.at(i).uploadId.isEmpty() &&
            m_services.protocol->capabilities().resumesByQuery) {
            TransferJob &job = m_jobs.job(id);
            job.setKnown(known.at(i));
            if (job.known().chunkSize > 0)
                job.setRequestedChunkSize(job.known().chunkSize); // the parts already sent have this size
        }
    }
    m_jobs.orderNewFiles();
    if (m_started) {
        if (m_finished)
            m_progressTimer.start(); // it stopped with the last batch: progress must tick again
        m_finished = false;
        pump();
    }
}

void TransferScheduler::adaptTo(const LinkEstimate &estimate)
{
    // The tuner starts again first: the chunks of the files still queued are cut for the level it
    // expects on the new link, not for the one the old tuner backed off to as the network went.
    if (m_options.tuneConnections) {
        // What the checks measured still holds for the new link's first windows.
        m_tuner = ConcurrencyTuner(tunerOptionsFor(m_pool, m_options, m_roundTripMs));
        m_tuner.setRoundTrip(m_roundTripMs);
        m_connections = m_tuner.level();
    }
    if (m_options.spreadFilesOverConnections && estimate.chunkSize > 0) {
        m_options.chunkSize = estimate.chunkSize;
        for (int id : m_jobs.waiting()) {
            TransferJob &job = m_jobs.job(id);
            if (job.state() == TransferState::Queued && job.uploadId().isEmpty())
                job.setRequestedChunkSize(chunkSizeFor(job.source()));
        }
    }
    if (m_options.tuneConnections)
        pump();
}

void TransferScheduler::capacityChanged(double rttMs)
{
    const int ceiling = std::min(m_pool.totalCapacity(), MaxConnections);
    if (m_options.tuneConnections) {
        m_options.connections = ceiling;
        if (rttMs > 0)
            m_roundTripMs = rttMs;
        if (!m_started || !m_tuner.hasJudged())
            m_tuner = ConcurrencyTuner(tunerOptionsFor(m_pool, m_options, m_roundTripMs));
        m_tuner.setMaximum(ceiling);
        m_tuner.setRoundTrip(m_roundTripMs);
        m_connections = m_tuner.level();
    } else {
        m_connections = std::min(m_fixedConnections, ceiling);
    }
    pump();
    // An endpoint just passed its check: the requests sent to it before, their bodies written,
    // get their next one behind now, not a round trip later when they are answered.
    QList<WireCall *> written;
    for (auto it = m_inFlight.cbegin(); it != m_inFlight.cend(); ++it) {
        if (!it->behind && isBodyWritten(*it))
            written.append(it.key());
    }
    for (WireCall *last : written)
        sendBehind(last); // it adds to m_inFlight
}

void TransferScheduler::start()
{
    m_started = true;
    m_startedMs = now();
    m_busySlotsSinceMs = 0;
    m_rate.addSample(0, 0);
    m_recentRate.addSample(0, 0);
    m_progressTimer.start();
    pump();
}

TransferProgress TransferScheduler::progress() const
{
    TransferProgress progress;
    progress.filesTotal = m_jobs.count();
    progress.bytesTotal = m_jobs.bytesTotal();
    progress.filesDone = m_jobs.countIn(TransferState::Done);
    progress.filesSkipped = m_jobs.countIn(TransferState::Skipped);
    progress.filesFailed = m_jobs.countIn(TransferState::Failed);
    progress.bytesDone = m_bytesAcknowledged + m_bytesInFlight;
    progress.bytesSent = m_bytesSent;
    progress.bytesDelivered = m_bytesDelivered;
    progress.elapsedMs = m_started ? now() - m_startedMs : 0;
    progress.bytesPerSecond = m_rate.bytesPerSecond(progress.elapsedMs);
    progress.online = m_monitor.isOnline();
    progress.paused = m_paused;
    progress.connections = m_connections;
    progress.connectionsReason = m_options.tuneConnections
                                     ? m_tuner.reason()
                                     : QStringLiteral("%1 connections (a fixed count)").arg(m_connections);
    return progress;
}

void TransferScheduler::emitProgress()
{
    const qint64 elapsed = now() - m_startedMs;
    // What left the machine by the kernel's count where it can tell, else what was handed to the
    // sockets; never the answers, which come a chunk at a time, too lumpy to compare one short
    // window with the next.
    const WireTransport::Delivery delivered = m_services.transport->delivery();
    m_bytesDelivered = delivered.bytes;
    const qint64 bytes = delivered.bytes >= 0 ? delivered.bytes : m_bytesSent;
    m_rate.addSample(elapsed, bytes);
    m_recentRate.addSample(elapsed, bytes);
    m_latestRate.addSample(elapsed, bytes);
    qCDebug(lcTicks) << elapsed << "ms: delivered" << bytes << "level" << m_connections << "in flight"
                     << m_inFlight.size() << "rtt" << delivered.rttMs;
    if (elapsed >= RecentRateMs) {
        const double perConnection = m_recentRate.bytesPerSecond(elapsed) / std::max(1, requestsAtLevel());
        // The kernel's round trip is only the first hop's behind a proxy next door (an emulated
        // link, a TLS terminator); the endpoint check's is end to end but misses a queue since.
        const double answerMs = std::max(delivered.rttMs, m_roundTripMs);
        m_pipelineBytes = qint64(2 * perConnection * answerMs / 1000);
    }
    if (m_options.tuneConnections && m_started && !m_paused && !m_heldForMeasurement &&
        m_monitor.isOnline()) {
        accountBusySlots();
        const int level = m_tuner.update(
            {elapsed, bytes, m_failures, m_busySlotMs, m_overloads, delivered.rttMs, delivered.minRttMs});
        if (level != m_connections) {
            qCDebug(lcTuner) << elapsed << "ms:" << m_connections << "->" << level << "delivered" << bytes
                             << "in flight" << m_inFlight.size() << "rtt" << delivered.rttMs
                             << m_tuner.reason();
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
    const TransferJob &job = m_jobs.job(id);
    return std::min(job.source().size, job.acknowledgedBytes() + job.bytesInFlight());
}

// ---- choosing the next piece of work --------------------------------------------------------

void TransferScheduler::pump()
{
    if (m_pumping || !m_started || m_paused || m_heldForMeasurement)
        return;
    m_pumping = true;
    openQueuedJobs();
    startChunkHashing();
    int refusedLeases = 0;
    // A pass over the requests out: often enough to see one that has stalled, not on every answer.
    if (now() - m_requestsOutScoredMs >= ScoreRequestsOutEveryMs)
        scoreRequestsOut();
    while (requestsAtLevel() < m_connections) {
        const std::optional<EndpointLease> lease = m_pool.acquire();
        if (!lease)
            break;
        if (!dispatchNext(*lease)) {
            m_pool.release(*lease);
            // An endpoint whose check is out takes less than the others: one of them may take it.
            if (m_pool.isUnchecked(lease->endpoint) && ++refusedLeases < m_pool.endpointCount())
                continue;
            break;
        }
    }
    sendBehindThoseWaitingForWork();
    warmUpForChunksToCome();
    startChunkHashing();
    m_pumping = false;

    if (!m_finished && m_jobs.isDrained()) {
        m_finished = true;
        m_progressTimer.stop();
        emitProgress(); // the final 100% always goes out
        Q_EMIT finished();
    }
}

void TransferScheduler::openQueuedJobs()
{
    // Enough open files that every connection has work even when files are tiny, but bounded
    // so a folder of 100 000 files does not open 100 000 uploads at once.
    const int maxOpen = std::max(4, m_options.connections * 2);
    m_jobs.openUpTo(maxOpen, [this](TransferJob &job) {
        // The chunk size is chosen as the file starts, with what the tuner knows by then.
        if (job.known().uploadId.isEmpty())
            job.setRequestedChunkSize(chunkSizeFor(job.source()));
        m_jobs.setState(job, TransferState::Preparing);
        job.needsCreate = !job.planner().isSingleRequest();
        job.sha256BeforeCreate =
            job.source().size <= m_services.protocol->capabilities().sha256BeforeCreateUpTo;
        // Chunk checksums in the same pass; a single request's one is the file's (S3's ETag).
        m_services.hasher->hashFile(job.id(), job.source().localPath(), job.planner().chunkSize());
        Q_EMIT fileStarted(job.id());
    });
}

int TransferScheduler::expectedConnections() const
{
    if (!m_options.tuneConnections)
        return m_connections;
    if (m_tuner.isSettled())
        return m_tuner.level();
    if (m_options.startLevel > 0)
        return std::min(m_options.startLevel, m_options.connections);
    // Still searching. Across a LAN a few connections fill the link; across a path with a round
    // trip, per-connection limits (a window, a shaper) may call for all the receivers allow.
    // Before the checks have answered, it may be such a path, with receivers that allow what
    // they do by default: chunks cut for fewer connections than it gets would leave most of them
    // idle at a file's end, for one chunk's time at a connection's cap, while chunks cut for
    // more cost a LAN only a few more requests.
    if (m_roundTripMs <= 0)
        return std::min(m_pool.expectedCapacity(), MaxConnections);
    return isLan() ? std::min(m_options.connections, 12) : m_options.connections;
}

qint64 TransferScheduler::chunkSizeFor(const SourceFile &file) const
{
    qint64 chunk = m_options.chunkSize;
    if (m_limiter.isLimited())
        chunk = std::min(chunk, std::max(ChunkPlanner::MinChunkSize, m_limiter.maxChunkFor()));
    if (m_options.spreadFilesOverConnections) {
        // Enough chunks for every connection several times over, so the tail of a file does not
        // leave most connections idle: while the last chunks go, the link empties, for as long
        // as one chunk takes at a connection's rate, which with c chunks a connection is 1/c of
        // the file's time. Across a path with a round trip that rate is what loss, a shaper or a
        // window leaves one connection (0.2 MB/s on a lossy path: a 256 KiB chunk is 1.2 s), so
        // 16 a connection; two chunks, the one sent and the one behind it, then outlast the
        // round trip on any file of more than 8 round trips at the level expected (where the
        // tuner settles lower, its connections are that many times faster and the chunks that
        // much shorter: more connections make up for it). On a LAN a chunk takes milliseconds
        // and what counts is each request's CPU: 8. Powers of two keep
        // chunks block-aligned. It applies below the chunk size too: a file sent in one request
        // rides a single connection, which a per-connection cap makes slow. The floors keep
        // request overhead small, and a file of at most MinSpreadChunk goes whole.
        const bool lan = isLan();
        qint64 spread = file.size / ((lan ? 8 : 16) * std::max(1, expectedConnections()));
        // Cut for a remembered level, which is below the ceiling, chunks come out bigger; where
        // loss holds each connection to a fraction of a MB/s they would take a second or more
        // each, and the file's end would wait on the last of them. What one connection carried
        // there says how long a chunk takes: a quarter of a second at most (until the tuner
        // settles on this run's own figures).
        const double rememberedRate = m_tuner.isSettled() ? 0 : m_options.startRatePerConnection;
        if (!lan && rememberedRate > 0)
            spread = std::min(spread, qint64(rememberedRate * MaxChunkSecondsRemembered));
        qint64 rounded = lan || file.size <= MinSpreadChunk ? MinSpreadChunk : MinPathChunk;
        while (rounded * 2 <= spread)
            rounded *= 2;
        chunk = std::min(chunk, rounded);
    }
    const ProtocolCapabilities &can = m_services.protocol->capabilities();
    chunk = std::max(chunk, can.minChunkSize);
    if (can.maxChunkSize > 0)
        chunk = std::min(chunk, can.maxChunkSize);
    if (can.maxChunks > 0) {
        // Grow the chunks until the file fits in the protocol's count, in whole MiB.
        const qint64 needed = (file.size + can.maxChunks - 1) / can.maxChunks;
        if (chunk < needed)
            chunk = (needed + (1 << 20) - 1) / (1 << 20) * (1 << 20);
    }
    return chunk;
}

bool TransferScheduler::mayPushData()
{
    const qint64 nowMs = now();
    if (m_limiter.mayStart(nowMs))
        return true;
    if (!m_limiterWakeScheduled) {
        m_limiterWakeScheduled = true;
        QTimer::singleShot(int(m_limiter.msUntilAllowed(nowMs)), this, [this] {
            m_limiterWakeScheduled = false;
            pump();
        });
    }
    return false;
}

static bool wantsChunkHash(const TransferJob &job)
{
    return job.state() == TransferState::Uploading && job.hasPendingChunk() && !job.waitingForHashToCompare;
}

static bool wantsChunkHashedAhead(const TransferJob &job)
{
    // A first create (not a resumed upload's query: most of its chunks are held already).
    return job.state() == TransferState::Preparing && job.needsCreate && job.requestInFlight &&
           job.known().uploadId.isEmpty() && job.hasChunkToHashAhead();
}

void TransferScheduler::startChunkHashing()
{
    // Hash a little ahead of the connections so a freed connection never waits for a checksum,
    // nor one that takes more requests behind the one it sends (as many as the budget holds of
    // the shortest chunks).
    int readyOrHashing = m_chunksHashing;
    qint64 shortestChunk = 0;
    for (int id : m_jobs.open()) {
        const TransferJob &job = m_jobs.job(id);
        readyOrHashing += job.readyCount() + job.hashedAheadCount();
        const qint64 chunk = job.planner().chunkSize();
        if (chunk > 0 && (shortestChunk == 0 || chunk < shortestChunk))
            shortestChunk = chunk;
    }
    const qint64 behindEach =
        shortestChunk > 0
            ? std::clamp<qint64>((m_pipelineBytes + shortestChunk - 1) / shortestChunk, 1, MaxRequestsBehind)
            : 1;
    const auto hashWhileRoom = [&](bool (*wants)(const TransferJob &), int (TransferJob::*take)()) {
        while (readyOrHashing < m_connections * behindEach + 2) {
            TransferJob *job = m_jobs.next(wants);
            if (!job)
                return;
            const ChunkRange range = job->planner().chunk((job->*take)());
            m_services.hasher->hashChunk(job->id(), range.index, job->source().localPath(), range.offset,
                                         range.length);
            ++m_chunksHashing;
            ++readyOrHashing;
        }
    };
    hashWhileRoom(wantsChunkHash, &TransferJob::takePendingChunk);
    // Then the connections' first chunks, while the create that decides their size is on its way.
    hashWhileRoom(wantsChunkHashedAhead, &TransferJob::takeChunkToHashAhead);
}

void TransferScheduler::warmUpForChunksToCome()
{
    // A file's chunks wait for its create's answer, a round trip; the connections they will take
    // open meanwhile instead of after it (a handshake each, more over TLS). As many as those
    // chunks can use: a connection opened for nothing costs the receiver a handshake.
    const int spare = m_connections - requestsAtLevel();
    if (spare <= 0 || m_paused)
        return;
    int chunksToCome = 0;
    for (const InFlight &request : std::as_const(m_inFlight)) {
        if (request.kind == RequestKind::Create || request.kind == RequestKind::Query)
            chunksToCome += m_jobs.job(request.job).planner().chunkCount();
    }
    if (chunksToCome == 0)
        return;
    const int wanted = requestsAtLevel() + std::min(spare, chunksToCome);
    int totalWeight = 0;
    for (int endpoint = 0; endpoint < m_pool.endpointCount(); ++endpoint)
        totalWeight += m_pool.takesRequests(endpoint) ? m_pool.endpoint(endpoint).weight : 0;
    for (int endpoint = 0; endpoint < m_pool.endpointCount() && totalWeight > 0; ++endpoint) {
        if (!m_pool.takesRequests(endpoint))
            continue;
        const int share = (wanted * m_pool.endpoint(endpoint).weight + totalWeight - 1) / totalWeight;
        m_services.transport->warmUp(endpoint, m_services.protocol->uploadOrigin(m_pool.endpoint(endpoint)),
                                     std::min(share, m_pool.capacity(endpoint)));
    }
}

bool TransferScheduler::dispatchNext(const EndpointLease &lease)
{
    // An endpoint whose check is out may be no receiver of ours, and a success from it is no proof
    // of a file stored: it gets only requests whose answers prove what they say (a create's
    // upload, a chunk's receipt, a finish that names the file's SHA-256), none other that would
    // end a file.
    const bool mayFinish =
        !m_pool.isUnchecked(lease.endpoint) || m_services.protocol->capabilities().finishProvesStorage;
    // Finishing files first keeps the number of half-done files (and server state) small.
    if (TransferJob *job = !mayFinish ? nullptr : m_jobs.next([](const TransferJob &j) {
            return j.state() == TransferState::Uploading && !j.requestInFlight && j.allChunksAcknowledged() &&
                   j.hasWhatCompleteNeeds();
        })) {
        sendComplete(*job, lease);
        return true;
    }
    if (TransferJob *job = m_jobs.next([](const TransferJob &j) {
            return j.state() == TransferState::Uploading && !j.requestInFlight && j.waitingForHashToCompare &&
                   !j.sha256().isEmpty() && j.sha256() == j.existingSha256();
        })) {
        // An identical file is already there: the upload is not needed.
        job->requestInFlight = true;
        send({RequestKind::Abort,
              job->id(),
              -1,
              {},
              job->uploadId(),
              lease,
              m_services.protocol->abort(contextFor(*job, lease))});
        return true;
    }
    const bool pushData = mayPushData();
    if (m_options.filesInOrder) {
        // Within each kind of request, the earliest file that has one.
        return (pushData && mayFinish && dispatchSingle(lease)) || (pushData && dispatchChunk(lease)) ||
               dispatchCreate(lease);
    }
    // Throughput: creates first (a round trip that unlocks a file's chunks), then chunks, and
    // whole small files only when no chunk is ready, biggest first, so the last requests of an
    // upload are short ones and every connection runs out of work at about the same time. Whole
    // files of a later batch (the window's next drop) take every other turn with an earlier
    // batch's chunks instead of waiting for all of them.
    // The turn passes only when a request goes: a pass the rate limit holds back changes nothing.
    if (dispatchCreate(lease))
        return true;
    if (!pushData)
        return false;
    if (m_laterBatchTurn && mayFinish && dispatchSingle(lease, true)) {
        m_laterBatchTurn = false;
        return true;
    }
    if (dispatchChunk(lease)) {
        m_laterBatchTurn = true;
        return true;
    }
    return mayFinish && dispatchSingle(lease);
}

bool TransferScheduler::dispatchCreate(const EndpointLease &lease)
{
    // While the destination checks are out, only uploads known from an earlier run go (asked
    // what they hold, not looked for).
    TransferJob *job = m_awaitingDestinationCheck
                           ? m_jobs.next([](const TransferJob &j) {
                                 return j.isReadyToCreate() && !j.known().uploadId.isEmpty();
                             })
                           : m_jobs.next([](const TransferJob &j) { return j.isReadyToCreate(); });
    if (!job)
        return false;
    job->requestInFlight = true;
    if (!job->known().uploadId.isEmpty()) {
        // Known from an earlier run: what does the server hold of it?
        UploadContext context = contextFor(*job, lease);
        context.uploadId = job->known().uploadId;
        send({RequestKind::Query, job->id(), -1, {}, {}, lease, m_services.protocol->resumeQuery(context)});
        return true;
    }
    send({RequestKind::Create,
          job->id(),
          -1,
          {},
          {},
          lease,
          m_services.protocol->findOrCreate(contextFor(*job, lease))});
    job->attachAsked = true;
    job->heldForDestinationCheck = false; // a second attach comes later than a look would
    return true;
}

static bool wantsChunkSent(const TransferJob &j)
{
    return j.state() == TransferState::Uploading && j.hasReadyChunk() && !j.waitingForHashToCompare;
}

static bool wantsWholeSent(const TransferJob &j)
{
    return j.state() == TransferState::Preparing && !j.requestInFlight && !j.needsCreate &&
           !j.sha256().isEmpty();
}

bool TransferScheduler::dispatchChunk(const EndpointLease &lease)
{
    TransferJob *job = m_jobs.next(wantsChunkSent);
    if (!job || leaveToFasterEndpoints(lease.endpoint, job->planner().chunkSize(), 0))
        return false;
    const InFlight request = chunkRequest(*job, job->takeReadyChunk(), lease);
    takeForSending(*job, request);
    send(request);
    return true;
}

bool TransferScheduler::dispatchSingle(const EndpointLease &lease, bool laterBatchOnly)
{
    if (m_awaitingDestinationCheck)
        return false;
    // The earliest open file: with --order files the first given, otherwise the biggest.
    TransferJob *job = laterBatchOnly ? m_jobs.nextFromLaterBatch(wantsWholeSent, wantsChunkSent)
                                      : m_jobs.next(wantsWholeSent, JobQueue::Pick::Earliest);
    if (!job || leaveToFasterEndpoints(lease.endpoint, job->source().size, 0))
        return false;
    const InFlight request = wholeRequest(*job, lease);
    takeForSending(*job, request);
    send(request);
    return true;
}

// ---- requests --------------------------------------------------------------------------------

UploadContext TransferScheduler::contextFor(const TransferJob &job, const EndpointLease &lease) const
{
    UploadContext context;
    context.endpoint = m_pool.endpoint(lease.endpoint);
    context.source = job.source();
    context.chunkSize = job.planner().chunkSize();
    context.uploadId = job.uploadId();
    context.sha256Hex = job.sha256();
    context.onConflict = m_options.onConflict;
    context.receipts = job.receipts();
    context.sourceChunkChecksums = job.sourceChunkChecksums();
    context.destinationWasEmpty =
        m_destinationSeenEmpty && (m_jobsBeforeFirstStored < 0 || job.id() < m_jobsBeforeFirstStored);
    context.destinationEmptyAtAttach = m_destinationSeenEmpty && job.heldForDestinationCheck;
    // Asked once already, this run may have created an upload whose answer was lost.
    context.noUnfinishedUploads = m_noUnfinishedUploadsSeen && !job.attachAsked;
    return context;
}

void TransferScheduler::destinationFound(DestinationFinding finding)
{
    if (finding == DestinationFinding::NoObjects)
        m_destinationSeenEmpty = true;
    else if (finding == DestinationFinding::NoUnfinishedUploads)
        m_noUnfinishedUploadsSeen = true;
}

void TransferScheduler::destinationChecked()
{
    if (!m_awaitingDestinationCheck)
        return;
    m_awaitingDestinationCheck = false;
    for (int id : m_jobs.open()) {
        TransferJob &job = m_jobs.job(id);
        job.heldForDestinationCheck = !job.attachAsked && job.known().uploadId.isEmpty();
    }
    pump();
}

void TransferScheduler::accountBusySlots()
{
    const qint64 elapsed = now() - m_startedMs;
    m_busySlotMs += qint64(requestsAtLevel()) * (elapsed - m_busySlotsSinceMs);
    m_busySlotsSinceMs = elapsed;
}

void TransferScheduler::send(const InFlight &request)
{
    track(m_services.transport->send(request.lease, request.exchange.request), request);
}

void TransferScheduler::track(WireCall *call, const InFlight &request)
{
    accountBusySlots();
    InFlight &tracked = *m_inFlight.insert(call, request);
    tracked.startedMs = now();
    tracked.sent = 0;
    connect(call, &WireCall::finished, this, [this, call] { onCallFinished(call); });
    if (request.exchange.request.file) {
        m_jobs.job(request.job).noteEndpointUsed(request.lease.endpoint);
        connect(call, &WireCall::bytesSent, this, [this, call](qint64 sent) {
            auto it = m_inFlight.find(call);
            if (it == m_inFlight.end() || sent <= it->sent)
                return;
            m_bytesInFlight += sent - it->sent;
            m_bytesSent += sent - it->sent;
            m_jobs.job(it->job).addBytesInFlight(sent - it->sent);
            m_dirtyJobs.insert(it->job);
            it->sent = sent;
            if (isBodyWritten(*it))
                sendBehind(call);
        });
    }
}

void TransferScheduler::sendBehindThoseWaitingForWork()
{
    // Work that became ready while every connection was busy (a chunk hashed late, a limit
    // lifted) goes behind the requests whose bodies were written while there was none: on the
    // endpoints that carry most first (as acquire() would weigh them; work that comes slower than
    // the connections take it is best on the fastest), in the order they were written.
    if (m_waitingForWork.isEmpty())
        return;
    // Each endpoint's weight looked up once, not in every comparison: pump() runs on every answer.
    QList<std::pair<int, WireCall *>> waiting; // (weight, request)
    waiting.reserve(m_waitingForWork.size());
    for (WireCall *tail : std::exchange(m_waitingForWork, {})) {
        const auto it = m_inFlight.constFind(tail);
        if (it != m_inFlight.cend())
            waiting.append({m_pool.weightOf(it->lease.endpoint), tail});
    }
    std::stable_sort(waiting.begin(), waiting.end(),
                     [](const auto &a, const auto &b) { return a.first > b.first; });
    for (qsizetype i = 0; i < waiting.size(); ++i) {
        WireCall *tail = waiting.at(i).second;
        sendBehind(tail);
        if (!m_waitingForWork.isEmpty() && m_waitingForWork.last() == tail) {
            for (qsizetype rest = i + 1; rest < waiting.size(); ++rest) // nothing more is ready:
                m_waitingForWork.append(waiting.at(rest).second);       // they wait on
            return;
        }
    }
}

void TransferScheduler::sendBehind(WireCall *ahead)
{
    const auto it = m_inFlight.constFind(ahead);
    if (it == m_inFlight.cend() || (it->kind != RequestKind::Chunk && it->kind != RequestKind::Single) ||
        it->cancelled || it->behind || !m_services.protocol->capabilities().pipelines || m_paused ||
        m_heldForMeasurement)
        return;
    // How deep: one request behind the one being answered always; more while those behind carry
    // less than the connection sends in the time an answer takes to come back, or the connection
    // idles for that time after each answer (the bytes behind run out before the next request is
    // written). Deep queues cost only at an upload's end: what is behind rides this connection.
    WireCall *head = ahead;
    qint64 bytesBehind = 0;
    int behind = 0;
    for (auto link = it; link != m_inFlight.cend() && link->ahead; link = m_inFlight.constFind(link->ahead)) {
        bytesBehind += link->exchange.request.file ? link->exchange.request.file->length : 0;
        ++behind;
        head = link->ahead;
    }
    if (behind > 0 && (bytesBehind >= pipelineBytesFor(it->lease.endpoint) || behind >= MaxRequestsBehind))
        return;
    // Above the level (the tuner or a receiver lowered it), connections must drain: a request
    // behind would take the place of the one ahead and keep its connection for ever. A level's
    // worth of them is kept busy meanwhile, or the link would empty as the drain ends.
    if (!isKeptThroughDrain(head))
        return;
    const EndpointLease lease = it->lease;
    if (!m_pool.takesRequests(lease.endpoint) || m_pool.isUnchecked(lease.endpoint))
        return;
    if (!mayPushData()) {
        waitForWork(ahead);
        return;
    }
    // A ready chunk, else the next whole file: what a connection freed now would get. Also at an
    // upload's end: this connection carries it at once, where one freed by an answer would start
    // it a round trip later (holding the last chunks back left each connection idle a round trip
    // per answer).
    TransferJob *job = m_jobs.next(wantsChunkSent);
    const bool chunked = job != nullptr;
    if (!job && !m_awaitingDestinationCheck)
        job = m_jobs.next(wantsWholeSent, JobQueue::Pick::Earliest);
    // Written is not delivered: on a slow link the bodies ahead may all still be in buffers.
    const auto first = m_inFlight.constFind(head);
    const qint64 bytesAhead = bytesBehind + (first != m_inFlight.cend() && first->exchange.request.file
                                                 ? first->exchange.request.file->length
                                                 : 0);
    if (!job || leaveToFasterEndpoints(
                    lease.endpoint, chunked ? job->planner().chunkSize() : job->source().size, bytesAhead)) {
        waitForWork(ahead);
        return;
    }
    InFlight request = chunked ? chunkRequest(*job, job->takeReadyChunk(), lease) : wholeRequest(*job, lease);
    WireCall *call = m_services.transport->sendBehind(ahead, lease, request.exchange.request);
    if (!call) {
        if (chunked)
            job->addReady({request.chunk, request.checksumHex});
        return;
    }
    takeForSending(*job, request);
    request.ahead = ahead;
    request.holdsLease = false;
    track(call, request);
    m_inFlight[ahead].behind = call;
    ++m_requestsBehind;
}

bool TransferScheduler::leaveToFasterEndpoints(int endpoint, qint64 bytes, qint64 bytesAhead) const
{
    if (!m_options.scoreEndpoints)
        return false;
    // The rest: the work not yet on any connection, at the upload's rate. As the level climbs
    // a second's rate says it takes longer than it will, so the latest rate counts where higher.
    const qint64 elapsed = now() - m_startedMs;
    const double sendRate =
        std::max(m_recentRate.bytesPerSecond(elapsed), m_latestRate.bytesPerSecond(elapsed));
    if (sendRate <= 0)
        return false;
    const qint64 unsent = std::max<qint64>(0, m_jobs.bytesTotal() - m_bytesAcknowledged - m_bytesInFlight);
    return m_scorer.outlastsTheRest(endpoint, bytes, bytesAhead, double(unsent) / sendRate);
}

qint64 TransferScheduler::pipelineBytesFor(int endpoint) const
{
    if (!m_options.scoreEndpoints)
        return m_pipelineBytes;
    return qint64(double(m_pipelineBytes) * m_scorer.pipelineShare(endpoint));
}

void TransferScheduler::waitForWork(WireCall *tail)
{
    if (!m_waitingForWork.contains(tail))
        m_waitingForWork.append(tail);
}

bool TransferScheduler::isKeptThroughDrain(WireCall *ahead)
{
    if (requestsAtLevel() <= m_connections) {
        m_keptForLevel = -1; // drained: the next drain chooses again
        return true;
    }
    if (m_keptForLevel != m_connections) {
        // Those with a request behind them first (they are busy longest), then those still
        // writing their body, then the rest; a create or a complete last (nothing goes behind
        // those): the connections kept are the fullest.
        m_keptForLevel = m_connections;
        const auto rank = [](const InFlight &head) {
            if (head.kind != RequestKind::Chunk && head.kind != RequestKind::Single)
                return 3;
            if (head.behind)
                return 0;
            return isBodyWritten(head) ? 2 : 1;
        };
        QList<std::pair<int, WireCall *>> heads;
        for (auto it = m_inFlight.begin(); it != m_inFlight.end(); ++it) {
            it->keptThroughDrain = false;
            if (!it->ahead)
                heads.append({rank(*it), it.key()});
        }
        std::stable_sort(heads.begin(), heads.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
        for (qsizetype i = 0; i < heads.size() && i < m_connections; ++i)
            m_inFlight[heads.at(i).second].keptThroughDrain = true;
    }
    const auto kept = m_inFlight.constFind(ahead);
    return kept != m_inFlight.cend() && kept->keptThroughDrain;
}

TransferScheduler::InFlight TransferScheduler::chunkRequest(const TransferJob &job, const ReadyChunk &chunk,
                                                            const EndpointLease &lease) const
{
    const ChunkRange range = job.planner().chunk(chunk.index);
    const ChunkToSend toSend{chunk.index, range.offset, range.length, chunk.checksumHex, completionFor(job)};
    return {RequestKind::Chunk,
            job.id(),
            chunk.index,
            chunk.checksumHex,
            job.uploadId(),
            lease,
            m_services.protocol->sendChunk(contextFor(job, lease), toSend)};
}

QByteArray TransferScheduler::completionFor(const TransferJob &job) const
{
    // What a complete needs, and no chunk of the file left to send after this one.
    if (!m_services.protocol->capabilities().chunksComplete || !job.hasWhatCompleteNeeds() ||
        job.hasPendingChunk() || job.hasReadyChunk())
        return {};
    int inFlight = 0;
    for (const InFlight &request : m_inFlight)
        inFlight +=
            request.kind == RequestKind::Chunk && request.job == job.id() && !request.cancelled ? 1 : 0;
    // Fewer: some chunk is being hashed, so this one is not the last.
    return job.acknowledgedChunks() + inFlight + 1 >= job.planner().chunkCount() ? job.sha256()
                                                                                 : QByteArray();
}

TransferScheduler::InFlight TransferScheduler::wholeRequest(const TransferJob &job,
                                                            const EndpointLease &lease) const
{
    return {RequestKind::Single,
            job.id(),
            -1,
            {},
            {},
            lease,
            m_services.protocol->sendWhole(contextFor(job, lease))};
}

void TransferScheduler::takeForSending(TransferJob &job, const InFlight &request)
{
    if (request.kind == RequestKind::Single) {
        m_limiter.consume(job.source().size, now());
        m_jobs.setState(job, TransferState::Uploading);
        job.requestInFlight = true;
    } else {
        m_limiter.consume(job.planner().chunk(request.chunk).length, now());
    }
}

void TransferScheduler::sendComplete(TransferJob &job, const EndpointLease &lease)
{
    if (sourceChanged(job)) {
        m_pool.release(lease);
        failAsChanged(job);
        return;
    }
    m_jobs.setState(job, TransferState::Completing);
    job.requestInFlight = true;
    send({RequestKind::Complete,
          job.id(),
          -1,
          {},
          job.uploadId(),
          lease,
          m_services.protocol->complete(contextFor(job, lease))});
}

// ---- bookkeeping -----------------------------------------------------------------------------

void TransferScheduler::retryJobLater(TransferJob &job, const QString &what, bool unanswered)
{
    const int attempts = unanswered ? 1 : job.bumpAttempts();
    if (attempts >= m_options.maxAttempts && m_monitor.isOnline()) {
        finishJob(job, TransferState::Failed,
                  QStringLiteral("gave up after %1 attempts: %2").arg(attempts).arg(what), true);
        return;
    }
    job.requestInFlight = true; // nothing else for this job until the delay is over
    const int jobId = job.id();
    QTimer::singleShot(retryDelayMs(attempts), this, [this, jobId] {
        m_jobs.job(jobId).requestInFlight = false;
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
    if (state == TransferState::Done && m_jobsBeforeFirstStored < 0)
        m_jobsBeforeFirstStored = m_jobs.count(); // before listeners add files
    m_jobs.setState(job, state);
    job.setError(error);
    job.setResumable(state == TransferState::Failed && resumable);
    m_dirtyJobs.insert(job.id());
    job.requestInFlight = false;
    const int id = job.id();
    m_jobs.close(id);
    Q_EMIT fileFinished(id);
    // After its listeners (the JSON line names the SHA-256), and by id: they may have added files.
    if (state == TransferState::Done || state == TransferState::Skipped)
        m_jobs.job(id).dropWorkState();
}

bool TransferScheduler::sourceChanged(const TransferJob &job) const
{
    const std::optional<LocalFileStat> now = LocalFileStat::of(job.source().localPath());
    return !now || now->size != job.source().size || now->mtimeMs != job.source().mtimeMs;
}

void TransferScheduler::failAsChanged(TransferJob &job)
{
    finishJob(
        job, TransferState::Failed,
        QStringLiteral("%1 changed while it was being sent; run the upload again to send the new version")
            .arg(job.source().localPath()));
}

int TransferScheduler::retryDelayMs(int attempt) const
{
    // Exponential backoff with full jitter, capped, so many clients do not retry in lockstep.
    const qint64 ceiling =
        std::min<qint64>(30000, qint64(m_options.retryBaseDelayMs) << std::min(attempt, 10));
    return int(ceiling / 2 + m_services.random(quint32(ceiling / 2 + 1)));
}

} // namespace multilane
