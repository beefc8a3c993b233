#include "TransferController.h"

#include "BandwidthProbe.h"
#include "ByteSize.h"
#include "NetworkManagers.h"
#include "ResumeJournal.h"
#include "SettingsStore.h"
#include "SourceScanner.h"
#include "UploadSession.h"

#include <QDateTime>
#include <QFileInfo>

namespace multilane {

static QList<QUrl> urlsOf(const QList<Endpoint> &endpoints)
{
    QList<QUrl> urls;
    for (const Endpoint &endpoint : endpoints)
        urls.append(endpoint.url);
    return urls;
}

TransferController::TransferController(SettingsStore &settings, ResumeJournal *journal, QObject *parent)
    : QObject(parent)
    , m_settings(settings)
    , m_journal(journal)
{}

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
    options.connections = s.connections;
    if (options.connections == 0) {
        // Automatic: the tuner finds the level, up to what the endpoints allow.
        for (const Endpoint &e : s.enabledEndpoints())
            options.connections += e.maxConnections;
        options.tuneConnections = true;
    }
    return options;
}

TransferController::AddResult TransferController::addPaths(const QStringList &paths)
{
    AddResult result;
    const UserSettings &s = m_settings.values();
    const QList<Endpoint> endpoints = s.enabledEndpoints();
    if (endpoints.isEmpty()) {
        result.errors.append(
            tr("No endpoint is set up: add one in Settings → Endpoints, then add the files again."));
        return result;
    }
    const SourceScanner::Result scan = SourceScanner::scan(paths, s.destination);
    result.errors = scan.errors;
    result.files = int(scan.files.size());
    if (scan.files.isEmpty())
        return result;

    const TransferOptions options = currentOptions();
    QString batchId;
    if (m_journal) {
        JournalBatch batch;
        batch.createdMs = QDateTime::currentMSecsSinceEpoch();
        batch.endpoints = endpoints;
        batch.connections = s.connections;
        batch.chunkSize = options.spreadFilesOverConnections ? 0 : options.chunkSize; // 0: measured
        batch.onConflict = options.onConflict;
        batch.destination = s.destination;
        batchId = m_journal->addBatch(batch);
        for (const SourceFile &file : scan.files)
            m_journal->addFile(batchId, file);
    }
    startFiles(sessionFor(endpoints, options), scan.files, batchId, !s.startOnDrop);
    return result;
}

void TransferController::networkReturned()
{
    for (const auto &session : m_sessions)
        session->scheduler().networkReachable();
    measureLink();
}

void TransferController::measureLink()
{
    const QList<Endpoint> endpoints = m_settings.values().enabledEndpoints();
    if (m_probe || endpoints.isEmpty())
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
                // Uploads under way to these endpoints follow the new figures too.
                for (const auto &session : m_sessions) {
                    if (urlsOf(session->endpoints()) == m_linkEndpoints)
                        session->scheduler().adaptTo(estimate);
                }
                done({});
            });
    connect(m_probe.get(), &BandwidthProbe::failed, this, [done](const QString &why) { done(why); });
    m_probe->start();
    Q_EMIT linkChanged();
}

UploadSession &TransferController::sessionFor(const QList<Endpoint> &endpoints,
                                              const TransferOptions &options)
{
    if (!m_sessions.empty() && m_sessions.back()->accepts(endpoints, options))
        return *m_sessions.back();
    auto session = std::make_unique<UploadSession>(endpoints, options, m_journal);
    UploadSession *raw = session.get();
    TransferScheduler &scheduler = raw->scheduler();
    connect(&scheduler, &TransferScheduler::jobsChanged, this,
            [this, raw](const QList<int> &jobs) { Q_EMIT jobsChanged(raw, jobs); });
    connect(&scheduler, &TransferScheduler::progressChanged, this, [this] { Q_EMIT progressChanged(); });
    connect(&scheduler, &TransferScheduler::onlineChanged, this, [this](bool online) {
        Q_EMIT onlineChanged(isOnline());
        if (online)
            measureLink(); // back after every endpoint was out: maybe another network
    });
    connect(&scheduler, &TransferScheduler::warning, this,
            [this](int, const QString &message) { Q_EMIT warning(message); });
    connect(&scheduler, &TransferScheduler::finished, this, [this, raw] {
        if (m_journal)
            m_journal->flush();
        const TransferProgress p = raw->scheduler().progress();
        const int sent = p.filesDone + p.filesSkipped;
        const bool failed = p.filesFailed > 0;
        QString summary = tr("%n file(s) uploaded (%1)", nullptr, sent).arg(ByteSize::format(p.bytesTotal));
        if (failed)
            summary += QLatin1Char(' ') + tr("— %n failed; retry them from the list", nullptr, p.filesFailed);
        Q_EMIT batchFinished(summary, failed);
    });
    if (m_paused)
        scheduler.pause();
    m_sessions.push_back(std::move(session));
    return *raw;
}

void TransferController::startFiles(UploadSession &session, const QList<SourceFile> &files,
                                    const QString &batchId, bool held)
{
    const int first = session.addFiles(files, batchId, held);
    Q_EMIT jobsAdded(&session, first, int(files.size()));
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

QStringList TransferController::resumeUnfinished()
{
    QStringList problems;
    if (!m_journal)
        return problems;
    const ResumeJournal::Snapshot snapshot = m_journal->state();
    for (const JournalBatch &batch : snapshot.batches) {
        QList<SourceFile> files;
        for (const JournalFile &file : snapshot.files) {
            if (file.batchId != batch.id)
                continue;
            const QFileInfo info(file.source.localPath);
            // A changed file would be refused by the receiver's checksums: say so and drop it,
            // like `multilane resume` does without --on-change restart.
            if (!info.isFile() || info.size() != file.source.size ||
                info.lastModified().toMSecsSinceEpoch() != file.source.mtimeMs) {
                problems.append(tr("%1 is gone or changed since its upload started; it was not resumed")
                                    .arg(file.source.localPath));
                m_journal->endFile(file.key);
                continue;
            }
            files.append(file.source);
        }
        if (files.isEmpty())
            continue;
        TransferOptions options = currentOptions();
        if (batch.chunkSize > 0) { // fixed by the user when the files were added
            options.chunkSize = batch.chunkSize;
            options.spreadFilesOverConnections = false;
        }
        options.onConflict = batch.onConflict;
        if (batch.connections > 0)
            options.connections = batch.connections;
        startFiles(sessionFor(batch.endpoints, options), files, batch.id, false);
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
        if (!session->scheduler().isFinished())
            sum.bytesPerSecond += p.bytesPerSecond;
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
