#pragma once

#include "CommandLine.h"

#include <QFile>
#include <QHash>
#include <QObject>
#include <memory>

namespace multilane {

class BandwidthProbe;
class ConsoleReporter;
class EndpointPool;
class HealthCheck;
class JsonEventWriter;
class LinkRemeasurer;
class NetworkManagers;
class ReachabilityHint;
class ResumeJournal;
class TransferScheduler;

// `multilane upload`: scans the paths, records them in the resume journal, checks the endpoints,
// runs the transfer and reports. Emits finished(exitCode): 0 all verified or skipped as
// identical, 1 anything failed, 130 interrupted (paused; `multilane resume` continues).
class UploadCommand : public QObject {
    Q_OBJECT
public:
    // journal may be null (no journal: nothing to resume from).
    UploadCommand(const UploadRequest &request, ResumeJournal *journal, QFile &out, QFile &err,
                  bool errIsTerminal, QObject *parent = nullptr);
    ~UploadCommand() override;

    // Sends request.paths, as a new batch in the journal.
    void start();
    // Sends files an earlier run journaled in batchId (multilane resume).
    void startResumed(const QList<SourceFile> &files, const QString &batchId);
    // Ctrl-C: pause, flush the journal, say how to go on, finish with 130.
    void interrupt();

Q_SIGNALS:
    void finished(int exitCode);

private:
    void checkEndpoints();
    void onHealthChecked(const QList<std::optional<QString>> &problems);
    void startTransfer(const QList<Endpoint> &usable);
    // Re-measures the link when the network changes, if anything was found by measuring.
    void watchLink(const QList<Endpoint> &usable);
    void attachJournal();
    void onTransferFinished();
    void reportError(const QString &message, const QString &path = {});
    void finish(int exitCode);

    UploadRequest m_request;
    ResumeJournal *m_journal;
    QString m_batchId;
    QHash<int, QString> m_journalKeys; // job id -> journal key
    bool m_finishing = false;
    std::unique_ptr<HealthCheck> m_health;
    std::unique_ptr<BandwidthProbe> m_probe;
    std::unique_ptr<NetworkManagers> m_probeManagers;
    std::unique_ptr<EndpointPool> m_pool;
    std::unique_ptr<TransferScheduler> m_scheduler;
    std::unique_ptr<ReachabilityHint> m_reachability;
    std::unique_ptr<LinkRemeasurer> m_remeasurer; // after the scheduler: it goes first
    std::unique_ptr<ConsoleReporter> m_console;
    std::unique_ptr<JsonEventWriter> m_json;
    QList<SourceFile> m_files;
    int m_scanErrors = 0;
};

} // namespace multilane
