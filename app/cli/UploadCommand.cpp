#include "UploadCommand.h"

#include "ByteSize.h"
#include "ConsoleReporter.h"
#include "EndpointPool.h"
#include "HealthCheck.h"
#include "JsonEventWriter.h"
#include "SourceScanner.h"
#include "TransferScheduler.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTimer>

namespace multilane {

UploadCommand::UploadCommand(const UploadRequest &request, QFile &out, QFile &err, bool errIsTerminal,
                             QObject *parent)
    : QObject(parent)
    , m_request(request)
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
    m_health = std::make_unique<HealthCheck>(m_healthManager);
    connect(m_health.get(), &HealthCheck::finished, this, &UploadCommand::onHealthChecked);
    m_health->check(m_request.endpoints);
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

    m_pool = std::make_unique<EndpointPool>(usable);
    TransferOptions options = m_request.transfer;
    options.connections = std::min(options.connections, m_pool->totalCapacity());
    if (!m_request.connectionsFixed) {
        options.connections = 0;
        for (const Endpoint &e : std::as_const(usable))
            options.connections += std::min(4, e.maxConnections);
    }
    m_scheduler = std::make_unique<TransferScheduler>(*m_pool, options);
    m_console->attach(*m_scheduler);
    if (m_json)
        m_json->attach(*m_scheduler);
    connect(m_scheduler.get(), &TransferScheduler::finished, this, &UploadCommand::onTransferFinished);
    m_scheduler->addFiles(m_files);
    m_scheduler->start();
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
    // Queued, so a caller connecting after start() still hears it.
    QTimer::singleShot(0, this, [this, exitCode] { Q_EMIT finished(exitCode); });
}

} // namespace multilane
