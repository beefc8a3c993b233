#pragma once

#include "EndpointPool.h"
#include "TransferScheduler.h"

#include <QHash>
#include <QObject>
#include <memory>

namespace multilane {

class ResumeJournal;

// One engine run: a pool over a fixed set of endpoints, its scheduler, and the resume journal
// kept in step with it (as `multilane upload` does). Files can be added while it runs; a change
// of endpoints or options makes a new session for the files added after it.
class UploadSession : public QObject {
    Q_OBJECT
public:
    // journal may be null: the uploads then cannot be resumed after a crash.
    UploadSession(const QList<Endpoint> &endpoints, const TransferOptions &options, ResumeJournal *journal,
                  QObject *parent = nullptr);
    ~UploadSession() override;

    TransferScheduler &scheduler() { return *m_scheduler; }
    const TransferScheduler &scheduler() const { return *m_scheduler; }
    const EndpointPool &pool() const { return *m_pool; }
    const QList<Endpoint> &endpoints() const { return m_endpoints; }
    const TransferOptions &options() const { return m_options; }
    // "127.0.0.1:9101 +2" for the table's endpoints column; endpointList() names them all.
    QString endpointSummary() const;
    QString endpointList() const;

    // True when files with these endpoints and options can join this session.
    bool accepts(const QList<Endpoint> &endpoints, const TransferOptions &options) const;

    // Adds files journaled under batchId (empty: not journaled) and starts them, or holds them
    // paused. Returns the id of the first new job.
    int addFiles(const QList<SourceFile> &files, const QString &batchId, bool held);
    // Queues a failed or cancelled file again and puts it back in the journal.
    void retry(int job);
    // The user removed the row: the file leaves the journal.
    void forget(int job);

private:
    void attachJournal();

    QList<Endpoint> m_endpoints;
    TransferOptions m_options;
    ResumeJournal *m_journal;
    std::unique_ptr<EndpointPool> m_pool;
    std::unique_ptr<TransferScheduler> m_scheduler;
    QHash<int, QString> m_journalKeys; // job id -> journal key
    QHash<int, QString> m_batchIds;    // job id -> journal batch
};

} // namespace multilane
