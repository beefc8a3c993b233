#include "UploadRun.h"

#include "BandwidthProbe.h"
#include "EndpointPool.h"
#include "HealthCheck.h"
#include "LinkRemeasurer.h"
#include "NetworkIdentity.h"
#include "NetworkManagers.h"
#include "ReachabilityHint.h"
#include "ReceiverProtocol.h"
#include "ResumeJournal.h"
#include "S3RunSetup.h"
#include "TransferScheduler.h"

#include <QDateTime>
#include <algorithm>

namespace multilane {

UploadRun::PreparedPlan UploadRun::prepared(UploadPlan plan)
{
    if (plan.protocol)
        return {std::move(plan), {}};
    if (!plan.s3.isSet()) {
        plan.protocol = std::make_shared<ReceiverProtocol>();
        return {std::move(plan), {}};
    }
    // The keys are looked for now, when the run starts, so a resume reads them afresh.
    S3Result<S3RunSetup> setup = S3RunSetup::prepare(plan, S3CredentialsLoader::forThisUser());
    if (!setup) {
        // Never used: start() reports the problem and sends nothing.
        plan.protocol = std::make_shared<ReceiverProtocol>();
        return {std::move(plan), setup.failure().userMessage};
    }
    plan.protocol = setup.value().protocol;
    plan.endpoints = setup.value().gateways;
    plan.s3 = setup.value().spec;
    return {std::move(plan), {}};
}

static TransferOptions optionsFor(const UploadPlan &plan, const EndpointPool &pool)
{
    TransferOptions options = plan.transfer;
    options.spreadFilesOverConnections = plan.autoChunkSize;
    if (plan.autoChunkSize && plan.knownLink && plan.knownLink->chunkSize > 0)
        options.chunkSize = plan.knownLink->chunkSize;
    // Self-tuned: the tuner finds the level, up to what the endpoints allow.
    options.tuneConnections = !plan.connectionsFixed;
    const int ceiling = std::min(pool.totalCapacity(), TransferScheduler::MaxConnections);
    options.connections = plan.connectionsFixed ? std::min(options.connections, ceiling) : ceiling;
    return options;
}

UploadRun::UploadRun(const UploadPlan &plan, ResumeJournal *journal, ReachabilityHint *reachability,
                     QObject *parent)
    : UploadRun(prepared(plan), journal, reachability, parent)
{}

UploadRun::UploadRun(PreparedPlan prepared, ResumeJournal *journal, ReachabilityHint *reachability,
                     QObject *parent)
    : QObject(parent)
    , m_plan(std::move(prepared.plan))
    , m_setupProblem(std::move(prepared.problem))
    , m_journal(journal)
    , m_reachability(reachability)
    , m_pool(std::make_unique<EndpointPool>(m_plan.endpoints))
    , m_chunkCap(m_plan.knownLink && m_plan.knownLink->chunkSize > 0 ? m_plan.knownLink->chunkSize
                                                                     : m_plan.transfer.chunkSize)
{
    TransferServices services;
    services.protocol = m_plan.protocol;
    m_scheduler =
        std::make_unique<TransferScheduler>(*m_pool, optionsFor(m_plan, *m_pool), std::move(services));
    attachJournal();
    if (m_reachability) {
        connect(m_reachability, &ReachabilityHint::networkReturned, m_scheduler.get(),
                &TransferScheduler::networkReachable);
    }
}

UploadRun::~UploadRun()
{
    // Whatever is still moving stays in the journal; make sure it is on disk.
    if (m_journal)
        m_journal->flush();
}

int UploadRun::addNewFiles(const QList<SourceFile> &files, bool held)
{
    const int first = m_scheduler->jobCount();
    // A run that cannot start (no S3 keys) leaves nothing to resume: the user fixes it and runs again.
    if (m_journal && !files.isEmpty() && m_setupProblem.isEmpty()) {
        JournalBatch batch;
        batch.createdMs = QDateTime::currentMSecsSinceEpoch();
        batch.endpoints = m_plan.endpoints;
        batch.connections = m_plan.connectionsFixed ? m_plan.transfer.connections : 0;
        batch.chunkSize = m_plan.autoChunkSize ? 0 : m_plan.transfer.chunkSize; // 0: measured
        batch.onConflict = m_plan.transfer.onConflict;
        batch.destination = m_plan.destination;
        batch.s3 = m_plan.s3;
        const QString batchId = m_journal->addBatch(batch);
        m_journalBatches.append(batchId);
        m_journalBatchOf.reserve(first + files.size());
        // The keys are keyFor() of each file: journalKeyOf() works one out again when needed.
        if (m_journal->addFiles(batchId, files)) {
            for (qsizetype i = 0; i < files.size(); ++i)
                setJournalBatch(first + int(i), int(m_journalBatches.size() - 1));
        }
    }
    m_scheduler->addFiles(files);
    if (held) {
        for (int id = first; id < m_scheduler->jobCount(); ++id)
            m_scheduler->setJobPaused(id, true);
    }
    return first;
}

int UploadRun::addResumedFiles(const QString &batchId, const QList<JournalFile> &files)
{
    const int first = m_scheduler->jobCount();
    QList<SourceFile> sources;
    QList<KnownUpload> known;
    sources.reserve(files.size());
    known.reserve(files.size());
    m_journalBatches.append(batchId);
    for (qsizetype i = 0; i < files.size(); ++i) {
        const JournalFile &file = files.at(i);
        sources.append(file.source);
        known.append({file.uploadId, file.chunkSize, file.receipts});
        setJournalBatch(first + int(i), int(m_journalBatches.size() - 1));
        if (file.key != ResumeJournal::keyFor(file.source))
            m_recordedKeys.insert(first + int(i), file.key);
    }
    m_scheduler->addFiles(sources, known);
    return first;
}

void UploadRun::setJournalBatch(int job, int batch)
{
    if (m_journalBatchOf.size() <= job)
        m_journalBatchOf.resize(job + 1, -1);
    m_journalBatchOf[job] = batch;
}

QString UploadRun::journalKeyOf(int job) const
{
    if (m_journalBatchOf.value(job, -1) < 0)
        return {};
    const auto recorded = m_recordedKeys.constFind(job);
    return recorded != m_recordedKeys.cend() ? *recorded
                                             : ResumeJournal::keyFor(m_scheduler->job(job).source());
}

QString UploadRun::journalBatchOf(int job) const
{
    return m_journalBatches.value(m_journalBatchOf.value(job, -1));
}

void UploadRun::start()
{
    if (m_started)
        return;
    m_started = true;
    if (!m_setupProblem.isEmpty()) {
        Q_EMIT noUsableEndpoint(m_setupProblem);
        return;
    }
    // The transfer starts at once, beside the endpoint checks: waiting for them would cost every
    // upload a round trip. Until an endpoint's check answers, a failure from it holds the work
    // back instead of failing it (it may be no receiver of ours at all); a check that fails takes
    // the endpoint out and sends what went there elsewhere. What the checks say of the receivers
    // (connections allowed, the round trip) reaches the tuner before it has judged anything.
    for (int i = 0; i < m_pool->endpointCount(); ++i)
        m_pool->setUnchecked(i, true);
    m_uncheckedGrace.setSingleShot(true);
    connect(&m_uncheckedGrace, &QTimer::timeout, this, &UploadRun::holdUncheckedEndpoints);
    m_health = std::make_unique<HealthCheck>(m_plan.protocol);
    connect(m_health.get(), &HealthCheck::endpointHealthy, this, &UploadRun::onEndpointHealthy);
    connect(m_health.get(), &HealthCheck::finished, this, &UploadRun::onEndpointsChecked);
    connect(m_health.get(), &HealthCheck::destinationFound, m_scheduler.get(),
            &TransferScheduler::destinationFound);
    connect(m_health.get(), &HealthCheck::destinationChecked, m_scheduler.get(),
            &TransferScheduler::destinationChecked);
    m_health->check(m_plan.endpoints);
    // Sent beside the health checks, they answer about when a file's own look would: waiting for
    // them costs nothing and spares the looks (S3: a HEAD and a listing before each create).
    if (m_health->isCheckingDestination())
        m_scheduler->awaitDestinationCheck();
    startFromRememberedLink();
    m_scheduler->capacityChanged();
    // On the next turn, as when it waited for a check: whoever started the run hears of it.
    QMetaObject::invokeMethod(
        this,
        [this] {
            if (!m_transferStarted)
                startTransfer();
        },
        Qt::QueuedConnection);
}

void UploadRun::onEndpointHealthy(int endpoint)
{
    // An automatic cap is what the receiver allows one client, when it says.
    const HealthOutcome &said = m_health->outcomes().at(endpoint);
    if (said.connectionsPerClient > 0)
        m_pool->setAllowedByReceiver(endpoint, said.connectionsPerClient);
    m_pool->setUnchecked(endpoint, false);
    m_pool->setPending(endpoint, false);
    if (m_checkRttMs <= 0)
        m_checkRttMs = said.rttMs;
    if (!m_graceStarted) {
        // Several of this one's round trips: an endpoint as near answers well within them.
        m_graceStarted = true;
        m_uncheckedGrace.start(std::max(UncheckedGraceMinMs, int(4 * said.rttMs)));
    }
    m_scheduler->capacityChanged(said.rttMs);
}

void UploadRun::holdUncheckedEndpoints()
{
    // An endpoint slow to answer holds no file back: without the checks' findings, files look.
    m_scheduler->destinationChecked();
    for (int i = 0; i < m_pool->endpointCount(); ++i) {
        if (m_pool->isUnchecked(i))
            m_scheduler->holdUntilChecked(i);
    }
}

void UploadRun::onEndpointsChecked(const QList<std::optional<QString>> &problems)
{
    m_uncheckedGrace.stop();
    m_scheduler->destinationChecked();
    int usable = 0;
    double rttMs = 0;
    for (int i = 0; i < int(problems.size()); ++i) {
        if (!problems.at(i)) {
            ++usable;
            const double rtt = m_health->outcomes().at(i).rttMs;
            if (rtt > 0 && (rttMs == 0 || rtt < rttMs))
                rttMs = rtt;
            continue;
        }
        m_pool->setPending(i, false);
        Q_EMIT endpointProblem(i, *problems.at(i));
        // Only an endpoint that gave no answer at all may come back by itself.
        const bool unanswered = m_health->isUnreachable(i);
        if (m_plan.unreachableAtStart == UploadPlan::Unreachable::Wait && unanswered)
            m_scheduler->markUnreachable(i, *problems.at(i));
        else
            m_scheduler->excludeEndpoint(i, *problems.at(i));
    }
    if (rttMs > 0)
        m_checkRttMs = rttMs;
    m_scheduler->capacityChanged(rttMs);
    Q_EMIT endpointsChecked(usable, int(problems.size()));
    if (usable == 0 && m_plan.unreachableAtStart == UploadPlan::Unreachable::Exclude) {
        m_scheduler->pause(); // what went to an endpoint before its check answered is back already
        Q_EMIT noUsableEndpoint(QStringLiteral("no endpoint is usable, nothing was sent"));
    }
}

void UploadRun::startFromRememberedLink()
{
    // Before the first request (the scheduler's tuner is built when capacity is first known).
    m_network = NetworkIdentity::of(m_plan.endpoints);
    if (!m_journal || (m_plan.connectionsFixed && !m_plan.autoChunkSize))
        return;
    const std::optional<LinkMemory> memory = m_journal->rememberedLink(m_network);
    const qint64 age = memory ? QDateTime::currentMSecsSinceEpoch() - memory->takenMs : -1;
    if (!memory || age < 0 || age > RememberedLinkMs)
        return;
    // A start, not a verdict: the tuner goes on judging from there.
    if (!m_plan.connectionsFixed)
        m_scheduler->setStartLevel(memory->connections, memory->perConnection());
    if (m_plan.autoChunkSize && !m_plan.knownLink && memory->chunkSize > 0) {
        LinkEstimate chunks;
        chunks.chunkSize = memory->chunkSize;
        m_scheduler->adaptTo(chunks);
        m_chunkCap = memory->chunkSize;
    }
    Q_EMIT startsFromRememberedLink(*memory);
}

void UploadRun::rememberSettledLink()
{
    const ConcurrencyTuner &tuner = m_scheduler->tuner();
    if (!m_journal || !m_scheduler->isSelfTuned() || m_network.isEmpty() || !tuner.isSettled() ||
        tuner.plateauRate() <= 0)
        return;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    // A new record when the level moves, else one now and then so the memory stays recent.
    if (tuner.level() == m_remembered.connections && now - m_remembered.takenMs < RememberedLinkMs / 4)
        return;
    m_remembered = {m_network, now, tuner.level(), tuner.plateauRate(), m_checkRttMs, m_chunkCap};
    m_journal->rememberLink(m_remembered);
}

void UploadRun::startTransfer()
{
    m_transferStarted = true;
    followNetworkChanges();
    m_scheduler->start();
    Q_EMIT transferStarted();
}

void UploadRun::followNetworkChanges()
{
    // Only what was found by measuring can follow a changed network.
    if ((!m_plan.autoChunkSize && m_plan.connectionsFixed) || !m_plan.protocol->capabilities().hasProbeRoute)
        return;
    if (!m_probeManagers)
        m_probeManagers = std::make_unique<NetworkManagers>();
    BandwidthProbe::Options options;
    options.durationMs = BandwidthProbe::InPassingMs;
    m_remeasurer =
        std::make_unique<LinkRemeasurer>(*m_scheduler, m_probeManagers->list(), m_plan.endpoints, options);
    // Back online on the network it left (a receiver restarted, a link that dropped for a while):
    // the tuner's figures still hold, and a probe would only send throw-away bytes.
    m_remeasurer->setOnlineGate([this] {
        const QString network = NetworkIdentity::of(m_plan.endpoints);
        const bool changed = !NetworkIdentity::sameNetwork(network, m_network);
        m_network = network;
        return changed;
    });
    if (m_reachability) {
        connect(m_reachability, &ReachabilityHint::networkReturned, m_remeasurer.get(),
                &LinkRemeasurer::remeasure);
        connect(m_reachability, &ReachabilityHint::networkChanged, m_remeasurer.get(),
                &LinkRemeasurer::remeasure);
    }
    connect(m_remeasurer.get(), &LinkRemeasurer::remeasured, this, [this](const LinkEstimate &estimate) {
        if (m_plan.autoChunkSize && estimate.chunkSize > 0)
            m_chunkCap = estimate.chunkSize;
        Q_EMIT linkRemeasured(estimate);
    });
    connect(m_remeasurer.get(), &LinkRemeasurer::failed, this, &UploadRun::linkRemeasureFailed);
}

void UploadRun::attachJournal()
{
    if (!m_journal)
        return;
    connect(m_scheduler.get(), &TransferScheduler::uploadAttached, this, [this](int id) {
        const QString key = journalKeyOf(id);
        if (key.isEmpty())
            return;
        const TransferJob &job = m_scheduler->job(id);
        m_journal->setUpload(key, job.uploadId(), job.planner().chunkSize());
    });
    connect(m_scheduler.get(), &TransferScheduler::chunkAcknowledged, this, [this](int id, int chunk) {
        if (const QString key = journalKeyOf(id); !key.isEmpty())
            m_journal->acknowledgeChunk(key, chunk, m_scheduler->job(id).receipts().value(chunk));
    });
    m_journalWrite.setSingleShot(true);
    m_journalWrite.setInterval(0);
    connect(&m_journalWrite, &QTimer::timeout, this, [this] { m_journal->writeHeldRecords(); });
    connect(m_scheduler.get(), &TransferScheduler::fileFinished, this, [this](int id) {
        // A file that failed for reasons waiting can fix stays, for a later resume.
        if (const QString key = journalKeyOf(id); !key.isEmpty() && !m_scheduler->job(id).isResumable()) {
            m_journal->endFileSoon(key);
            if (!m_journalWrite.isActive())
                m_journalWrite.start();
        }
    });
    connect(m_scheduler.get(), &TransferScheduler::finished, this, [this] { m_journal->flush(); });
    connect(m_scheduler.get(), &TransferScheduler::progressChanged, this, &UploadRun::rememberSettledLink);
}

void UploadRun::retry(int job)
{
    if (const QString batchId = journalBatchOf(job); m_journal && !batchId.isEmpty()) {
        if (m_journal->addFile(batchId, m_scheduler->job(job).source()))
            m_recordedKeys.remove(job); // added again under keyFor()'s key
    }
    m_scheduler->retryJob(job);
}

void UploadRun::forget(int job)
{
    if (!isTerminal(m_scheduler->job(job).state()))
        m_scheduler->cancelJob(job);
    if (const QString key = journalKeyOf(job); m_journal && !key.isEmpty())
        m_journal->endFile(key);
}

void UploadRun::pauseAndFlush()
{
    m_scheduler->pause();
    if (m_journal)
        m_journal->flush();
}

} // namespace multilane
