#pragma once

#include "CommandLine.h"
#include "ResumePlan.h"
#include "SourceScanner.h"

#include <QFile>
#include <QJsonArray>
#include <QObject>
#include <memory>

namespace multilane {

class ConsoleReporter;
class JsonEventWriter;
class ReachabilityHint;
class ResumeJournal;
class UploadRun;

// `multilane upload`: scans the paths and hands them to an UploadRun (the one upload flow, shared
// with the window), printing what it says. Emits finished(exitCode): 0 all verified or skipped as
// identical, 1 anything failed, 2 the run cannot start (no S3 keys), 130 interrupted (paused;
// `multilane resume` continues).
class UploadCommand : public QObject {
    Q_OBJECT
public:
    // journal may be null (no journal: nothing to resume from); reachability too (then the
    // system's network hints are used).
    UploadCommand(const UploadRequest &request, ResumeJournal *journal, QFile &out, QFile &err,
                  bool errIsTerminal, ReachabilityHint *reachability = nullptr, QObject *parent = nullptr);
    ~UploadCommand() override;

    // Sends request.paths, as a new batch in the journal.
    void start();
    // Sends a batch an earlier run journaled (multilane resume), with the plan it started with.
    void startResumed(const ResumePlan::Batch &batch);
    // Ctrl-C: pause, flush the journal, say how to go on, finish with 130.
    void interrupt();

    static UploadPlan planFor(const UploadRequest &request);
    // The run under way (null before start and when nothing was to send).
    const UploadRun *run() const { return m_run.get(); }

Q_SIGNALS:
    void finished(int exitCode);

private:
    void makeRun(const UploadPlan &plan);
    bool refusedSetup(); // reported it and finishes with 2
    void onTransferFinished();
    void reportError(const QString &message, const QString &path = {});
    // The entries not sent (FIFOs, links to folders…), each with why, for the summary.
    void printSkipped();
    QJsonArray skippedAsJson() const;
    void finish(int exitCode);

    UploadRequest m_request;
    ResumeJournal *m_journal;
    bool m_finishing = false;
    ReachabilityHint *m_reachability;
    std::unique_ptr<ReachabilityHint> m_ownReachability;
    std::unique_ptr<UploadRun> m_run;
    std::unique_ptr<ConsoleReporter> m_console;
    std::unique_ptr<JsonEventWriter> m_json;
    int m_scanErrors = 0;
    QList<SourceScanner::Skipped> m_skipped; // what the scan found and does not send, with why
};

} // namespace multilane
