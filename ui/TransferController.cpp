#include "TransferController.h"

#include "BandwidthProbe.h"
#include "NaturalOrder.h"
#include "NetworkManagers.h"
#include "ReachabilityHint.h"
#include "ResumeJournal.h"
#include "ResumePlan.h"
#include "SettingsStore.h"
#include "SourceScanner.h"
#include "Units.h"
#include "UploadSession.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace multilane {

TransferController::TransferController(SettingsStore &settings, ResumeJournal *journal,
                                       ReachabilityHint *reachability, QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_journal(journal)
    , m_reachability(reachability)
{
    if (m_reachability) {
        // The system's word changes what waiting rows and the badge say.
        connect(m_reachability, &ReachabilityHint::networkLost, this,
                [this] { Q_EMIT onlineChanged(isOnline()); });
        connect(m_reachability, &ReachabilityHint::networkReturned, this,
                [this] { Q_EMIT onlineChanged(isOnline()); });
    }
}

TransferController::~TransferController() = default;

TransferOptions TransferController::currentOptions() const
{
    const UserSettings &s = m_settings.values();
    TransferOptions options;
    // "Auto" chunk size: from the last link measurement of these endpoints (measureLink()), else
    // the engine's default; either way spread over the connections per file.
    const bool measured = m_link && m_linkEndpoints == urlsOf(s.enabledEndpoints());
    options.chunkSize = !s.chunkSizeAuto ? s.chunkSize
                        : measured       ? m_link->chunkSize
                                         : ChunkPlanner::DefaultChunkSize;
    options.spreadFilesOverConnections = s.chunkSizeAuto;
    options.onConflict = s.onConflict;
    options.maxAttempts = s.maxAttempts;
    options.retryBaseDelayMs = s.retryBaseDelayMs;
    options.limitBytesPerSecond = double(s.speedLimitBytesPerSecond);
    // 0 is automatic: the tuner finds the level, up to what the receivers allow (UploadRun).
    options.connections = s.connections;
    options.tuneConnections = s.connections == 0;
    return options;
}

UploadPlan TransferController::currentPlan() const
{
    const UserSettings &s = m_settings.values();
    UploadPlan plan;
    plan.endpoints = s.enabledEndpoints();
    plan.transfer = currentOptions();
    plan.connectionsFixed = s.connections > 0;
    plan.autoChunkSize = s.chunkSizeAuto;
    plan.destination = s.destination;
    // The window waits for receivers that do not answer yet, as it does when they stop later.
    plan.unreachableAtStart = UploadPlan::Unreachable::Wait;
    if (s.chunkSizeAuto && m_link && m_linkEndpoints == urlsOf(plan.endpoints))
        plan.knownLink = m_link;
    if (s.s3.enabled)
        toS3(plan, s.s3);
    return plan;
}

void TransferController::toS3(UploadPlan &plan, const S3TargetSettings &s3)
{
    // The bucket's gateways stand in for the receivers; the link measured to those does not hold.
    plan.s3 = s3.target;
    plan.endpoints.clear();
    for (const QUrl &url : s3.gateways) {
        Endpoint gateway;
        gateway.url = url;
        plan.endpoints.append(gateway);
    }
    plan.knownLink.reset();
    if (!s3.accessKeyId.isEmpty())
        plan.s3Credentials = S3Credentials{s3.accessKeyId, s3.secretAccessKey, {}, tr("the keyring")};
}

// Rows in the order a file manager shows them: file2 before file10. Each name is decoded once
// (SourceFile keeps its paths as UTF-8), not twice in every comparison.
static void sortAsAFileManagerDoes(QList<SourceFile> &files)
{
    std::vector<std::pair<QString, qsizetype>> names;
    names.reserve(std::size_t(files.size()));
    for (qsizetype i = 0; i < files.size(); ++i)
        names.emplace_back(files.at(i).destinationPath(), i);
    std::stable_sort(names.begin(), names.end(),
                     [](const auto &a, const auto &b) { return NaturalOrder::less(a.first, b.first); });
    QList<SourceFile> sorted;
    sorted.reserve(files.size());
    for (const auto &name : names)
        sorted.append(files.at(name.second));
    files = std::move(sorted);
}

TransferController::AddResult TransferController::addPaths(const QStringList &paths)
{
    AddResult result;
    const UserSettings &s = m_settings.values();
    if (s.enabledEndpoints().isEmpty() && !s.s3.enabled) {
        result.errors.append(
            tr("No endpoint is set up: add one in Settings → Endpoints, then add the files again."));
        return result;
    }
    SourceScanner::Result scan = SourceScanner::scan(paths, s.destination);
    sortAsAFileManagerDoes(scan.files);
    result.errors = scan.errors;
    result.files = int(scan.files.size());
    if (scan.files.isEmpty())
        return result;
    UploadSession &session = sessionFor(currentPlan());
    if (const QString problem = session.run().setupProblem(); !problem.isEmpty()) {
        // No S3 keys: nothing starts, nothing is journaled; the user fixes it and drops again.
        m_sessions.pop_back();
        result.errors.append(problem);
        result.files = 0;
        return result;
    }
    const int first = session.addFiles(scan.files, !s.startOnDrop);
    Q_EMIT jobsAdded(&session, first, int(scan.files.size()));
    return result;
}

void TransferController::measureLink()
{
    const QList<Endpoint> endpoints = m_settings.values().enabledEndpoints();
    if (m_probe || endpoints.isEmpty())
        return;
    m_measureWhenIdle = isBusy();
    if (m_measureWhenIdle)
        return;
    if (!m_probeManagers)
        m_probeManagers = std::make_unique<NetworkManagers>();
    BandwidthProbe::Options options;
    options.durationMs = BandwidthProbe::InPassingMs;
    m_probe = std::make_unique<BandwidthProbe>(m_probeManagers->list(), endpoints, options);
    const auto done = [this](const QString &failed) {
        // Deleting the probe inside its own signal would pull the rug from under it.
        m_probe.release()->deleteLater();
        Q_EMIT linkChanged(failed);
    };
    connect(m_probe.get(), &BandwidthProbe::finished, this,
            [this, endpoints, done](const LinkEstimate &estimate) {
                m_link = estimate;
                m_linkEndpoints = urlsOf(endpoints);
                done({});
            });
    connect(m_probe.get(), &BandwidthProbe::failed, this, [done](const QString &why) { done(why); });
    m_probe->start();
    Q_EMIT linkChanged();
}

UploadSession &TransferController::sessionFor(const UploadPlan &plan)
{
    if (!m_sessions.empty() && m_sessions.back()->accepts(plan))
        return *m_sessions.back();
    auto session = std::make_unique<UploadSession>(plan, m_journal, m_reachability);
    UploadSession *raw = session.get();
    TransferScheduler &scheduler = raw->scheduler();
    connect(&scheduler, &TransferScheduler::jobsChanged, this,
            [this, raw](const QList<int> &jobs) { Q_EMIT jobsChanged(raw, jobs); });
    connect(&scheduler, &TransferScheduler::progressChanged, this, [this] { Q_EMIT progressChanged(); });
    connect(&scheduler, &TransferScheduler::onlineChanged, this,
            [this] { Q_EMIT onlineChanged(isOnline()); });
    connect(&scheduler, &TransferScheduler::warning, this,
            [this](int, const QString &message) { Q_EMIT warning(message); });
    connect(&raw->run(), &UploadRun::endpointProblem, this,
            [this](int, const QString &message) { Q_EMIT warning(message); });
    // The run measured again after a network change: the status bar shows it, and new uploads
    // to these endpoints use it.
    connect(&raw->run(), &UploadRun::linkRemeasured, this, [this, raw](const LinkEstimate &estimate) {
        m_link = estimate;
        m_linkEndpoints = urlsOf(raw->endpoints());
        Q_EMIT linkChanged();
    });
    connect(&raw->run(), &UploadRun::transferStarted, this, [this] {
        if (!m_probe)
            return;
        m_probe->cancel();
        m_probe.release()->deleteLater();
        m_measureWhenIdle = true;
        Q_EMIT linkChanged();
    });
    connect(&scheduler, &TransferScheduler::finished, this, [this, raw] {
        const TransferProgress p = raw->scheduler().progress();
        const int sent = p.filesDone + p.filesSkipped;
        const bool failed = p.filesFailed > 0;
        QString summary = tr("%n file(s) uploaded (%1)", nullptr, sent).arg(Units::size(p.bytesTotal));
        if (failed)
            summary += QLatin1Char(' ') + tr("— %n failed; retry them from the list", nullptr, p.filesFailed);
        Q_EMIT batchFinished(summary, failed);
        if (m_measureWhenIdle && !isBusy())
            measureLink();
    });
    if (m_paused)
        scheduler.pause();
    m_sessions.push_back(std::move(session));
    return *raw;
}

int TransferController::unfinishedFiles() const
{
    return m_journal ? int(m_journal->state().files.size()) : 0;
}

qint64 TransferController::unfinishedBytes() const
{
    qint64 total = 0;
    if (m_journal) {
        for (const JournalFile &file : m_journal->state().files)
            total += file.source.size;
    }
    return total;
}

QStringList TransferController::unfinishedNames() const
{
    QStringList names;
    if (m_journal) {
        for (const JournalFile &file : m_journal->state().files)
            names.append(file.source.destinationPath());
    }
    std::stable_sort(names.begin(), names.end(), NaturalOrder::less);
    return names;
}

QStringList TransferController::resumeUnfinished()
{
    if (!m_journal)
        return {};
    ResumePlan::Options options;
    options.transfer = currentOptions();
    options.unreachableAtStart = UploadPlan::Unreachable::Wait;
    if (m_settings.values().s3.enabled) {
        UploadPlan s3;
        toS3(s3, m_settings.values().s3);
        options.s3Credentials = s3.s3Credentials; // the keyring's, for S3 batches
    }
    const ResumePlan plan(*m_journal, options);
    for (const QString &notice : plan.notices())
        Q_EMIT warning(notice);
    QStringList problems = plan.problems();
    for (const ResumePlan::Batch &batch : plan.batches()) {
        UploadSession &session = sessionFor(batch.plan);
        if (const QString problem = session.run().setupProblem(); !problem.isEmpty()) {
            m_sessions.pop_back(); // left in the journal for when the keys are there
            problems.append(problem);
            continue;
        }
        const int first = session.addResumed(batch);
        Q_EMIT jobsAdded(&session, first, int(batch.files.size()));
    }
    return problems;
}

void TransferController::discardUnfinished()
{
    if (!m_journal)
        return;
    const ResumeJournal::Snapshot snapshot = m_journal->state();
    for (const JournalFile &file : snapshot.files)
        m_journal->endFile(file.key);
    m_journal->flush();
}

void TransferController::pauseAll()
{
    m_paused = true;
    for (const auto &session : m_sessions)
        session->scheduler().pause();
    Q_EMIT pausedChanged(true);
}

void TransferController::resumeAll()
{
    m_paused = false;
    for (const auto &session : m_sessions)
        session->scheduler().resume();
    Q_EMIT pausedChanged(false);
}

bool TransferController::isBusy() const
{
    for (const auto &session : m_sessions) {
        if (!session->scheduler().isFinished())
            return true;
    }
    return false;
}

bool TransferController::isOnline() const
{
    for (const auto &session : m_sessions) {
        if (!session->scheduler().isFinished() && !session->scheduler().isOnline())
            return false;
    }
    return true;
}

bool TransferController::systemSaysOffline() const
{
    return m_reachability && m_reachability->saysNetworkAbsent();
}

QStringList TransferController::downEndpoints() const
{
    QStringList lines;
    for (const auto &session : m_sessions) {
        if (session->scheduler().isFinished())
            continue;
        for (const QString &line : session->downEndpoints()) {
            if (!lines.contains(line))
                lines.append(line);
        }
    }
    return lines;
}

LiveFigures::Delivery TransferController::delivery()
{
    if (!m_meter.isAvailable())
        return {};
    QList<quint16> ports;
    for (const auto &session : m_sessions) {
        if (session->scheduler().isFinished())
            continue;
        for (quint16 port : session->ports()) {
            if (!ports.contains(port))
                ports.append(port);
        }
    }
    if (ports.isEmpty())
        return {0, 0, 0};
    const DeliveryMeter::Sample sample = m_meter.sample(ports);
    return {sample.ackedBytes, sample.queuedBytes, m_link ? m_link->bytesPerSecond : 0};
}

QPair<qint64, qint64> TransferController::chunkSizesInUse() const
{
    QPair<qint64, qint64> sizes{0, 0};
    for (const auto &session : m_sessions) {
        const TransferScheduler &scheduler = session->scheduler();
        if (scheduler.isFinished())
            continue;
        for (int id = 0; id < scheduler.jobCount(); ++id) {
            const TransferJob &job = scheduler.job(id);
            if (job.state() != TransferState::Uploading || job.planner().isSingleRequest())
                continue;
            const qint64 chunk = job.planner().chunkSize();
            sizes.first = sizes.first == 0 ? chunk : std::min(sizes.first, chunk);
            sizes.second = std::max(sizes.second, chunk);
        }
    }
    return sizes;
}

TransferProgress TransferController::totals() const
{
    TransferProgress sum;
    for (const auto &session : m_sessions) {
        const TransferProgress p = session->scheduler().progress();
        sum.bytesTotal += p.bytesTotal;
        sum.bytesDone += p.bytesDone;
        sum.bytesSent += p.bytesSent;
        sum.filesTotal += p.filesTotal;
        sum.filesDone += p.filesDone;
        sum.filesSkipped += p.filesSkipped;
        sum.filesFailed += p.filesFailed;
        if (!session->scheduler().isFinished()) {
            sum.bytesPerSecond += p.bytesPerSecond;
            sum.connections += p.connections;
            sum.connectionsReason = p.connectionsReason; // the newest running upload's
        }
    }
    sum.online = isOnline();
    sum.paused = m_paused;
    return sum;
}

QList<QPair<QString, int>> TransferController::connectionsPerEndpoint() const
{
    QList<QPair<QString, int>> result;
    for (const auto &session : m_sessions) {
        if (session->scheduler().isFinished())
            continue;
        for (int i = 0; i < session->pool().endpointCount(); ++i) {
            const QString name = session->pool().endpoint(i).url.authority();
            auto it = std::find_if(result.begin(), result.end(),
                                   [&name](const auto &p) { return p.first == name; });
            if (it == result.end())
                result.append({name, session->pool().busy(i)});
            else
                it->second += session->pool().busy(i);
        }
    }
    return result;
}

} // namespace multilane
