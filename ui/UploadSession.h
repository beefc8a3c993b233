#pragma once

#include "ResumePlan.h"
#include "UploadRun.h"

#include <QHash>
#include <QObject>
#include <memory>

namespace multilane {

class EndpointPool;
class ReachabilityHint;
class ResumeJournal;
class TransferScheduler;

// The window's handle on one UploadRun (the upload flow the command line runs too): the names
// the table shows for its endpoints, why the ones that are out are out, and whether files added
// later may join it. A change of endpoints or options makes a new session for the files added
// after it.
class UploadSession : public QObject {
    Q_OBJECT
public:
    // journal and reachability may be null.
    UploadSession(const UploadPlan &plan, ResumeJournal *journal, ReachabilityHint *reachability,
                  QObject *parent = nullptr);
    ~UploadSession() override;

    UploadRun &run() { return *m_run; }
    TransferScheduler &scheduler() { return m_run->scheduler(); }
    const TransferScheduler &scheduler() const { return m_run->scheduler(); }
    const EndpointPool &pool() const { return m_run->pool(); }
    const QList<Endpoint> &endpoints() const { return m_run->plan().endpoints; }
    const UploadPlan &plan() const { return m_run->plan(); }
    // "127.0.0.1:9101 +2" for the table: the first of the endpoints a file's bytes went to and how
    // many more (empty when none yet); endpointList() names them all.
    QString endpointSummary(const QList<int> &used) const;
    QString endpointList(const QList<int> &used) const;
    // The endpoints that are out now, each with why ("127.0.0.1:9101 — connection refused"),
    // one a line; empty when all answer.
    QStringList downEndpoints() const;
    // The peer ports of its endpoints, for counting what the kernel delivered to them.
    QList<quint16> ports() const;

    // True when files with this plan can join this session.
    bool accepts(const UploadPlan &plan) const;

    // Adds new files (a batch of their own in the journal) and starts them, or holds them
    // paused. Returns the id of the first new job.
    int addFiles(const QList<SourceFile> &files, bool held);
    // Adds a batch an earlier run left unfinished.
    int addResumed(const ResumePlan::Batch &batch);
    // Queues a failed or cancelled file again and puts it back in the journal.
    void retry(int job) { m_run->retry(job); }
    // The user removed the row: the file leaves the journal.
    void forget(int job) { m_run->forget(job); }

private:
    QString nameOf(int endpoint) const;

    std::unique_ptr<UploadRun> m_run;
    UploadPlan m_requested;        // as asked for: the run's plan has an S3 target's gateways filled in
    QHash<int, QString> m_whyDown; // endpoint -> what took it out
};

} // namespace multilane
