#pragma once

#include "CommandLine.h"

#include <QFile>
#include <QNetworkAccessManager>
#include <QObject>
#include <memory>

namespace multilane {

class ConsoleReporter;
class EndpointPool;
class HealthCheck;
class JsonEventWriter;
class TransferScheduler;

// `multilane upload`: scans the paths, checks the endpoints, runs the transfer and reports.
// Emits finished(exitCode): 0 all verified or skipped as identical, 1 anything failed.
class UploadCommand : public QObject {
    Q_OBJECT
public:
    UploadCommand(const UploadRequest &request, QFile &out, QFile &err, bool errIsTerminal,
                  QObject *parent = nullptr);
    ~UploadCommand() override;

    void start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    void onHealthChecked(const QList<std::optional<QString>> &problems);
    void onTransferFinished();
    void reportError(const QString &message, const QString &path = {});
    void finish(int exitCode);

    UploadRequest m_request;
    QNetworkAccessManager m_healthManager;
    std::unique_ptr<HealthCheck> m_health;
    std::unique_ptr<EndpointPool> m_pool;
    std::unique_ptr<TransferScheduler> m_scheduler;
    std::unique_ptr<ConsoleReporter> m_console;
    std::unique_ptr<JsonEventWriter> m_json;
    QList<SourceFile> m_files;
    int m_scanErrors = 0;
};

} // namespace multilane
