#pragma once

#include "ResumeJournalTypes.h"
#include "TransferJob.h"
#include "UploadPlan.h"

#include <QHash>
#include <QObject>
#include <QTimer>
#include <memory>

namespace multilane {

class EndpointPool;
class HealthCheck;
class LinkRemeasurer;
class NetworkManagers;
class ReachabilityHint;
class ResumeJournal;
class TransferScheduler;
struct JournalFile;

// One batch's upload from start to end, the single flow both front ends drive: checks the
// endpoints (what each allows one client), runs the scheduler, keeps the resume journal in step
// with it, and measures the link again when the network changes. Front ends only present what it
// says (the command line prints, the window fills its table) and pass on the user's commands.
class UploadRun : public QObject {
    Q_OBJECT
public:
    // journal and reachability may be null (nothing to resume from; no system network hints).
    UploadRun(const UploadPlan &plan, ResumeJournal *journal, ReachabilityHint *reachability,
              QObject *parent = nullptr);
    // A link estimate in the journal this recent, of the same network, is where a run starts.
    static constexpr qint64 RememberedLinkMs = 10 * 60 * 1000;
    ~UploadRun() override;

    // Files of a new batch, journaled under a batch of their own; held: added paused. May be
    // called again while the run goes (the window's later drops). Returns the first new job id.
    int addNewFiles(const QList<SourceFile> &files, bool held = false);
    // Files an earlier run journaled in batchId, with what it knew of their uploads.
    int addResumedFiles(const QString &batchId, const QList<JournalFile> &files);
    // Checks the endpoints and starts the transfer beside the checks (on the next turn of the
    // event loop); endpoints are held back or taken out as their checks answer.
    void start();
    bool hasStarted() const { return m_started; }

    // The plan as the run completed it (an S3 target's protocol, gateways and region).
    const UploadPlan &plan() const { return m_plan; }
    // Why the run cannot start (an S3 target without keys, a CA bundle that cannot be read), in
    // words that say what to set; empty when it can. start() then only reports it.
    const QString &setupProblem() const { return m_setupProblem; }
    TransferScheduler &scheduler() { return *m_scheduler; }
    const TransferScheduler &scheduler() const { return *m_scheduler; }
    const EndpointPool &pool() const { return *m_pool; }

    // A failed or cancelled file queued again (and put back in the journal).
    void retry(int job);
    // The user took the file off the list: it is cancelled and leaves the journal.
    void forget(int job);
    // Ctrl-C, quitting: requests stop, the journal is on disk.
    void pauseAndFlush();

Q_SIGNALS:
    void endpointProblem(int endpoint, const QString &message);
    // Every endpoint's check has answered (or timed out): how many are usable.
    void endpointsChecked(int usable, int total);
    void noUsableEndpoint(const QString &why);
    void linkRemeasured(const multilane::LinkEstimate &estimate); // the network changed under it
    void linkRemeasureFailed(const QString &why);
    // The tuner starts where a recent run on the same network settled (the journal's memory).
    void startsFromRememberedLink(const multilane::LinkMemory &memory);
    void transferStarted();

private:
    struct PreparedPlan {
        UploadPlan plan;
        QString problem;
    };
    static PreparedPlan prepared(UploadPlan plan);
    UploadRun(PreparedPlan prepared, ResumeJournal *journal, ReachabilityHint *reachability, QObject *parent);

    void onEndpointHealthy(int endpoint);
    void onEndpointsChecked(const QList<std::optional<QString>> &problems);
    void startTransfer();
    void followNetworkChanges();
    void attachJournal();
    void startFromRememberedLink();
    void rememberSettledLink();

    UploadPlan m_plan;
    QString m_setupProblem;
    ResumeJournal *m_journal;
    ReachabilityHint *m_reachability;
    std::unique_ptr<EndpointPool> m_pool;
    std::unique_ptr<TransferScheduler> m_scheduler;
    std::unique_ptr<HealthCheck> m_health;
    // Started by the first endpoint that passes its check: an endpoint still unchecked when it
    // fires gives its work back and waits for its check (one that drops packets would hold what it
    // took until its check's timeout).
    QTimer m_uncheckedGrace;
    bool m_graceStarted = false;
    static constexpr int UncheckedGraceMinMs = 1000;
    void holdUncheckedEndpoints();
    std::unique_ptr<NetworkManagers> m_probeManagers;
    std::unique_ptr<LinkRemeasurer> m_remeasurer;
    // Each job's journal batch, by job id: an index in m_journalBatches, -1 when the journal does
    // not keep the job. A list of ints, not of ids or keys: a batch may hold a million files.
    QList<qint32> m_journalBatchOf;
    QStringList m_journalBatches;
    // A job's journal key is ResumeJournal::keyFor() of its source, worked out when needed; a
    // resumed file whose recorded key is another keeps that one here.
    QHash<int, QString> m_recordedKeys;
    void setJournalBatch(int job, int batch);
    // Files that end in one turn of the event loop share the write of their journal records.
    QTimer m_journalWrite;
    QString journalKeyOf(int job) const;
    QString journalBatchOf(int job) const;
    bool m_started = false;
    bool m_transferStarted = false;
    QString m_network;       // NetworkIdentity of the endpoints, from the endpoint check on
    double m_checkRttMs = 0; // the endpoint check's round trip
    qint64 m_chunkCap = 0;   // the largest chunk files not started yet get (automatic size)
    LinkMemory m_remembered; // what this run last wrote to the journal
};

} // namespace multilane
