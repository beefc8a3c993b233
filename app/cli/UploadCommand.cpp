#include "UploadCommand.h"

#include "BandwidthProbe.h"
#include "ByteSize.h"
#include "ConsoleReporter.h"
#include "EndpointPool.h"
#include "HealthCheck.h"
#include "JsonEventWriter.h"
#include "LinkRemeasurer.h"
#include "NetworkManagers.h"
#include "ProbeCommand.h"
#include "ReachabilityHint.h"
#include "ReceiverProtocol.h"
#include "ResumeJournal.h"
#include "SourceScanner.h"
#include "TlsTrust.h"
#include "TransferScheduler.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QTimer>

namespace multilane {

UploadCommand::UploadCommand(const UploadRequest &request, ResumeJournal *journal, QFile &out, QFile &err,
                             bool errIsTerminal, QObject *parent)
    : QObject(parent)
    , m_request(request)
    , m_journal(journal)
    , m_console(std::make_unique<ConsoleReporter>(err, errIsTerminal, request.quiet))
{
    if (request.json)
        m_json = std::make_unique<JsonEventWriter>(out);
}

UploadCommand::~UploadCommand() = default;

void UploadCommand::start()
{
    const SourceScanner::Result scan = SourceScanner::scan(m_request.paths, m_request.destination);
    for (const QString &error : scan.errors)
        reportError(error);
    m_scanErrors = int(scan.errors.size());
    m_files = scan.files;
    if (m_files.isEmpty()) {
        if (m_scanErrors == 0)
            m_console->printLine(QStringLiteral("nothing to send: the folders named hold no files"));
        finish(m_scanErrors > 0 ? 1 : 0);
        return;
    }
    if (m_journal) {
        JournalBatch batch;
        batch.createdMs = QDateTime::currentMSecsSinceEpoch();
        batch.endpoints = m_request.endpoints;
        batch.connections = m_request.connectionsFixed ? m_request.transfer.connections : 0;
        batch.chunkSize = m_request.autoChunkSize ? 0 : m_request.transfer.chunkSize; // 0: measured
        batch.onConflict = m_request.transfer.onConflict;
        batch.destination = m_request.destination;
        m_batchId = m_journal->addBatch(batch);
        for (const SourceFile &file : std::as_const(m_files))
            m_journal->addFile(m_batchId, file);
    }
    checkEndpoints();
}

void UploadCommand::startResumed(const QList<SourceFile> &files, const QString &batchId)
{
    m_files = files;
    m_batchId = batchId;
    checkEndpoints();
}

void UploadCommand::checkEndpoints()
{
    m_health = std::make_unique<HealthCheck>(std::make_shared<ReceiverProtocol>());
    connect(m_health.get(), &HealthCheck::finished, this, &UploadCommand::onHealthChecked);
    m_health->check(m_request.endpoints);
}

void UploadCommand::interrupt()
{
    if (m_finishing)
        return;
    if (m_scheduler)
        m_scheduler->pause();
    if (m_journal)
        m_journal->flush();
    m_console->printLine(m_journal
                             ? QStringLiteral("paused; run 'multilane resume' to continue where it stopped")
                             : QStringLiteral("stopped"));
    if (m_json)
        m_json->writeError(QStringLiteral("interrupted"));
    finish(130);
}

void UploadCommand::attachJournal()
{
    if (!m_journal)
        return;
    for (int id = 0; id < m_scheduler->jobCount(); ++id)
        m_journalKeys.insert(id, ResumeJournal::keyFor(m_scheduler->job(id).source()));
    connect(m_scheduler.get(), &TransferScheduler::uploadAttached, this, [this](int id) {
        const TransferJob &job = m_scheduler->job(id);
        m_journal->setUpload(m_journalKeys.value(id), job.uploadId(), job.planner().chunkSize());
    });
    connect(m_scheduler.get(), &TransferScheduler::chunkAcknowledged, this, [this](int id, int chunk) {
        m_journal->acknowledgeChunk(m_journalKeys.value(id), chunk,
                                    m_scheduler->job(id).receipts().value(chunk));
    });
    connect(m_scheduler.get(), &TransferScheduler::fileFinished, this, [this](int id) {
        if (!m_scheduler->job(id).isResumable())
            m_journal->endFile(m_journalKeys.value(id));
    });
}

void UploadCommand::onHealthChecked(const QList<std::optional<QString>> &problems)
{
    QList<Endpoint> usable;
    for (qsizetype i = 0; i < problems.size(); ++i) {
        if (problems.at(i))
            reportError(*problems.at(i));
        else
            usable.append(m_request.endpoints.at(i));
    }
    if (usable.isEmpty()) {
        reportError(QStringLiteral("no endpoint is usable, nothing was sent"));
        finish(1);
        return;
    }
    if (usable.size() < m_request.endpoints.size())
        m_console->printLine(QStringLiteral("continuing with %1 of %2 endpoints")
                                 .arg(usable.size())
                                 .arg(m_request.endpoints.size()));

    // Auto chunk size: measure the link first, unless there is too little to send for the
    // measurement (a second) to pay off; small files go in one request each anyway.
    qint64 totalBytes = 0;
    for (const SourceFile &file : std::as_const(m_files))
        totalBytes += file.size;
    if (!m_request.autoChunkSize || totalBytes < 256LL * 1024 * 1024) {
        m_request.transfer.spreadFilesOverConnections = m_request.autoChunkSize;
        startTransfer(usable);
        return;
    }
    m_probeManagers = std::make_unique<NetworkManagers>();
    BandwidthProbe::Options options;
    options.durationMs = BandwidthProbe::InPassingMs;
    m_probe = std::make_unique<BandwidthProbe>(m_probeManagers->list(), usable, options);
    connect(m_probe.get(), &BandwidthProbe::finished, this, [this, usable](const LinkEstimate &estimate) {
        if (!m_request.quiet)
            m_console->printLine(ProbeCommand::describe(estimate));
        m_request.transfer.chunkSize = estimate.chunkSize;
        m_request.transfer.spreadFilesOverConnections = true;
        startTransfer(usable);
    });
    connect(m_probe.get(), &BandwidthProbe::failed, this, [this, usable](const QString &why) {
        m_console->printLine(QStringLiteral("could not measure the link (%1); using %2 chunks")
                                 .arg(why, ByteSize::format(m_request.transfer.chunkSize)));
        startTransfer(usable);
    });
    m_probe->start();
}

void UploadCommand::startTransfer(const QList<Endpoint> &usable)
{
    m_pool = std::make_unique<EndpointPool>(usable);
    TransferOptions options = m_request.transfer;
    options.connections = std::min(options.connections, m_pool->totalCapacity());
    if (!m_request.connectionsFixed) {
        // Self-tuned: start at a few connections and let the tuner find the level, up to what
        // the endpoints allow.
        options.connections = m_pool->totalCapacity();
        options.tuneConnections = true;
    }
    m_scheduler = std::make_unique<TransferScheduler>(*m_pool, options);
    m_console->attach(*m_scheduler);
    if (m_json)
        m_json->attach(*m_scheduler);
    connect(m_scheduler.get(), &TransferScheduler::onlineChanged, this, [this](bool online) {
        m_console->printLine(
            online ? QStringLiteral("an endpoint answers again; continuing")
                   : QStringLiteral("waiting for network: no endpoint answers; retrying on its own "
                                    "(Ctrl-C pauses, 'multilane resume' continues later)"));
        if (m_json)
            m_json->writeState(online ? QStringLiteral("online") : QStringLiteral("waitingForNetwork"));
    });
    connect(m_scheduler.get(), &TransferScheduler::finished, this, &UploadCommand::onTransferFinished);
    m_reachability = std::make_unique<ReachabilityHint>(ReachabilityHint::systemBackend());
    connect(m_reachability.get(), &ReachabilityHint::networkReturned, m_scheduler.get(),
            &TransferScheduler::networkReachable);
    watchLink(usable);
    m_scheduler->addFiles(m_files);
    attachJournal();
    m_scheduler->start();
}

void UploadCommand::watchLink(const QList<Endpoint> &usable)
{
    // Only what is found by measuring can follow a changed network.
    if (!m_request.autoChunkSize && m_request.connectionsFixed)
        return;
    if (!m_probeManagers)
        m_probeManagers = std::make_unique<NetworkManagers>();
    BandwidthProbe::Options options;
    options.durationMs = BandwidthProbe::InPassingMs;
    m_remeasurer = std::make_unique<LinkRemeasurer>(*m_scheduler, m_probeManagers->list(), usable, options);
    connect(m_reachability.get(), &ReachabilityHint::networkReturned, m_remeasurer.get(),
            &LinkRemeasurer::remeasure);
    connect(m_reachability.get(), &ReachabilityHint::networkChanged, m_remeasurer.get(),
            &LinkRemeasurer::remeasure);
    connect(m_remeasurer.get(), &LinkRemeasurer::remeasured, this, [this](const LinkEstimate &estimate) {
        if (!m_request.quiet)
            m_console->printLine(QStringLiteral("the network changed; link measured again: %1 (for the files "
                                                "not started yet)")
                                     .arg(estimate.summary()));
        if (m_json)
            m_json->writeLink(estimate);
    });
    connect(m_remeasurer.get(), &LinkRemeasurer::failed, this, [this](const QString &why) {
        if (!m_request.quiet)
            m_console->printLine(
                QStringLiteral("the network changed; could not measure the link again (%1)").arg(why));
    });
}

void UploadCommand::onTransferFinished()
{
    const TransferProgress progress = m_scheduler->progress();
    m_console->printSummary(progress);
    if (m_json) {
        QJsonArray endpoints;
        const QList<EndpointStats> &stats = m_scheduler->endpointStats();
        for (int i = 0; i < m_pool->endpointCount(); ++i) {
            endpoints.append(QJsonObject{{QStringLiteral("url"), m_pool->endpoint(i).url.toString()},
                                         {QStringLiteral("requests"), stats.at(i).chunks},
                                         {QStringLiteral("bytes"), stats.at(i).bytes},
                                         {QStringLiteral("failures"), stats.at(i).failures}});
        }
        m_json->writeSummary(progress, endpoints);
    }
    finish(progress.filesFailed > 0 || m_scanErrors > 0 ? 1 : 0);
}

void UploadCommand::reportError(const QString &message, const QString &path)
{
    m_console->printLine(QStringLiteral("error: ") + message);
    if (m_json)
        m_json->writeError(message, path);
}

void UploadCommand::finish(int exitCode)
{
    if (m_finishing)
        return;
    m_finishing = true;
    if (m_journal)
        m_journal->flush();
    // Queued, so a caller connecting after start() still hears it.
    QTimer::singleShot(0, this, [this, exitCode] { Q_EMIT finished(exitCode); });
}

} // namespace multilane
