#pragma once

#include "CommandLine.h"
#include "ResumePlan.h"

#include <QFile>
#include <QList>
#include <QObject>
#include <memory>

namespace multilane {

class ReachabilityHint;
class ResumeJournal;
class UploadCommand;

// `multilane resume`: continues every unfinished upload in the journal, one recorded batch after
// the other, each with the endpoints and options it was started with. A source file that changed
// since is sent again from zero (or refused with --on-change fail), never stitched from two
// versions. Emits finished(exitCode) like `upload`.
class ResumeCommand : public QObject {
    Q_OBJECT
public:
    // reachability may be null: the system's network hints are used.
    ResumeCommand(const UploadRequest &options, ResumeJournal &journal, QFile &out, QFile &err,
                  bool errIsTerminal, ReachabilityHint *reachability = nullptr, QObject *parent = nullptr);
    ~ResumeCommand() override;

    void start();
    void interrupt();
    // The batch being sent now (null between batches).
    const UploadCommand *current() const { return m_current.get(); }

    // `multilane status`: what is unfinished, as text or JSON. Returns the exit code.
    static int printStatus(const ResumeJournal &journal, bool json, QFile &out, QFile &err);

Q_SIGNALS:
    void finished(int exitCode);

private:
    void runNextBatch();

    UploadRequest m_options;
    ResumeJournal &m_journal;
    QFile &m_out;
    QFile &m_err;
    bool m_errIsTerminal;
    ReachabilityHint *m_reachability;
    QList<ResumePlan::Batch> m_batches;
    std::unique_ptr<UploadCommand> m_current;
    int m_worstExit = 0;
};

} // namespace multilane
