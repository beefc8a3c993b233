#include "UploadCommand.h"

#include "ByteSize.h"
#include "ConsoleReporter.h"
#include "EndpointPool.h"
#include "JsonEventWriter.h"
#include "ReachabilityHint.h"
#include "ResumeJournal.h"
#include "SourceScanner.h"
#include "TransferScheduler.h"
#include "UploadRun.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QTimer>

namespace multilane {

UploadCommand::UploadCommand(const UploadRequest &request, ResumeJournal *journal, QFile &out, QFile &err,
                             bool errIsTerminal, ReachabilityHint *reachability, QObject *parent)
    : QObject(parent)
    , m_request(request)
    , m_journal(journal)
    , m_reachability(reachability)
    , m_console(std::make_unique<ConsoleReporter>(err, errIsTerminal, request.quiet))
{
    if (request.json)
        m_json = std::make_unique<JsonEventWriter>(out);
}

UploadCommand::~UploadCommand() = default;

UploadPlan UploadCommand::planFor(const UploadRequest &request)
{
    UploadPlan plan;
    plan.endpoints = request.endpoints;
    plan.transfer = request.transfer;
    plan.connectionsFixed = request.connectionsFixed;
    plan.autoChunkSize = request.autoChunkSize;
    plan.destination = request.destination;
    plan.s3 = request.s3;
    plan.unreachableAtStart = UploadPlan::Unreachable::Exclude; // a script wants to know at once
    return plan;
}

void UploadCommand::start()
{
    const SourceScanner::Result scan = SourceScanner::scan(m_request.paths, m_request.destination);
    for (const QString &error : scan.errors)
        reportError(error);
    m_scanErrors = int(scan.errors.size());
    m_skipped = scan.skipped;
    if (scan.files.isEmpty()) {
        if (m_scanErrors == 0)
            m_console->printLine(QStringLiteral("nothing to send: the folders named hold no regular files"));
        printSkipped();
        if (m_json)
            m_json->writeSummary(TransferProgress{}, {}, skippedAsJson());
        finish(m_scanErrors > 0 ? 1 : 0);
        return;
    }
    makeRun(planFor(m_request));
    if (refusedSetup())
        return;
    m_run->addNewFiles(scan.files);
    m_run->start();
}

void UploadCommand::startResumed(const ResumePlan::Batch &batch)
{
    makeRun(batch.plan);
    if (refusedSetup())
        return;
    m_run->addResumedFiles(batch.id, batch.files);
    m_run->start();
}

bool UploadCommand::refusedSetup()
{
    // No S3 keys, an unreadable CA bundle: what to set is a usage matter, said before anything runs.
    if (m_run->setupProblem().isEmpty())
        return false;
    reportError(m_run->setupProblem());
    finish(2);
    return true;
}

void UploadCommand::makeRun(const UploadPlan &plan)
{
    if (!m_reachability) {
        m_ownReachability = std::make_unique<ReachabilityHint>(ReachabilityHint::systemBackend());
        m_reachability = m_ownReachability.get();
    }
    m_run = std::make_unique<UploadRun>(plan, m_journal, m_reachability);
    UploadRun &run = *m_run;
    TransferScheduler &scheduler = run.scheduler();
    m_console->attach(scheduler);
    if (m_json)
        m_json->attach(scheduler);
    connect(&run, &UploadRun::endpointProblem, this,
            [this](int, const QString &message) { reportError(message); });
    connect(&run, &UploadRun::endpointsChecked, this, [this](int usable, int total) {
        if (usable > 0 && usable < total)
            m_console->printLine(QStringLiteral("continuing with %1 of %2 endpoints").arg(usable).arg(total));
    });
    connect(&run, &UploadRun::noUsableEndpoint, this, [this](const QString &why) {
        reportError(why);
        finish(1);
    });
    connect(&run, &UploadRun::linkRemeasured, this, [this](const LinkEstimate &estimate) {
        if (!m_request.quiet)
            m_console->printLine(QStringLiteral("the network changed; link measured again: %1 (for the files "
                                                "not started yet)")
                                     .arg(estimate.summary()));
        if (m_json)
            m_json->writeLink(estimate);
    });
    connect(&run, &UploadRun::linkRemeasureFailed, this, [this](const QString &why) {
        if (!m_request.quiet)
            m_console->printLine(
                QStringLiteral("the network changed; could not measure the link again (%1)").arg(why));
    });
    connect(&run, &UploadRun::startsFromRememberedLink, this, [this](const LinkMemory &memory) {
        const qint64 ageSeconds = (QDateTime::currentMSecsSinceEpoch() - memory.takenMs) / 1000;
        if (!m_request.quiet)
            m_console->printLine(
                QStringLiteral("starting at %1 connections, where this network settled %2 s ago "
                               "(%3); tuning goes on from there")
                    .arg(memory.connections)
                    .arg(ageSeconds)
                    .arg(ByteSize::formatRate(memory.bytesPerSecond)));
        if (m_json)
            m_json->writeRememberedLink(memory, ageSeconds);
    });
    connect(&scheduler, &TransferScheduler::onlineChanged, this, [this](bool online) {
        m_console->printLine(
            online ? QStringLiteral("an endpoint answers again; continuing")
                   : QStringLiteral("waiting for the receivers: no endpoint answers (the network or the "
                                    "receivers are down); retrying on its own (Ctrl-C pauses, "
                                    "'multilane resume' continues later)"));
        if (m_json)
            m_json->writeState(online ? QStringLiteral("online") : QStringLiteral("waitingForNetwork"));
    });
    connect(&scheduler, &TransferScheduler::finished, this, &UploadCommand::onTransferFinished);
}

void UploadCommand::interrupt()
{
    if (m_finishing)
        return;
    if (m_run)
        m_run->pauseAndFlush();
    m_console->printLine(m_journal
                             ? QStringLiteral("paused; run 'multilane resume' to continue where it stopped")
                             : QStringLiteral("stopped"));
    if (m_json)
        m_json->writeError(QStringLiteral("interrupted"));
    finish(130);
}

void UploadCommand::onTransferFinished()
{
    const TransferScheduler &scheduler = m_run->scheduler();
    const TransferProgress progress = scheduler.progress();
    m_console->printSummary(progress);
    printSkipped();
    if (m_json) {
        QJsonArray endpoints;
        const QList<EndpointStats> &stats = scheduler.endpointStats();
        for (int i = 0; i < m_run->pool().endpointCount(); ++i) {
            endpoints.append(QJsonObject{{QStringLiteral("url"), m_run->pool().endpoint(i).url.toString()},
                                         {QStringLiteral("requests"), stats.at(i).chunks},
                                         {QStringLiteral("bytes"), stats.at(i).bytes},
                                         {QStringLiteral("failures"), stats.at(i).failures}});
        }
        m_json->writeSummary(progress, endpoints, skippedAsJson());
    }
    finish(progress.filesFailed > 0 || m_scanErrors > 0 ? 1 : 0);
}

void UploadCommand::printSkipped()
{
    if (m_skipped.isEmpty())
        return;
    constexpr qsizetype Shown = 20;
    m_console->printLine(
        QStringLiteral("not sent, %1 entries that are not regular files:").arg(m_skipped.size()));
    for (const SourceScanner::Skipped &entry : m_skipped.mid(0, Shown))
        m_console->printLine(QStringLiteral("  %1: %2").arg(entry.path, entry.reason));
    if (m_skipped.size() > Shown)
        m_console->printLine(
            QStringLiteral("  and %1 more (--json lists them all)").arg(m_skipped.size() - Shown));
}

QJsonArray UploadCommand::skippedAsJson() const
{
    QJsonArray entries;
    for (const SourceScanner::Skipped &entry : m_skipped)
        entries.append(
            QJsonObject{{QStringLiteral("path"), entry.path}, {QStringLiteral("reason"), entry.reason}});
    return entries;
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
