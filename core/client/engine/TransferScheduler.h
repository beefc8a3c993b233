#pragma once

#include "ConcurrencyTuner.h"
#include "EndpointMonitor.h"
#include "EndpointPool.h"
#include "EndpointScorer.h"
#include "FileDigest.h"
#include "HashWorker.h"
#include "LinkEstimate.h"
#include "RateLimiter.h"
#include "RateMeter.h"
#include "ReceiverApi.h"
#include "TransferJob.h"

#include <QElapsedTimer>
#include <QHash>
#include <QNetworkAccessManager>
#include <QObject>
#include <QSet>
#include <QTimer>
#include <vector>

class QNetworkAccessManager;

namespace multilane {

struct TransferOptions {
    int connections = 12;
    qint64 chunkSize = ChunkPlanner::DefaultChunkSize;
    OnConflict onConflict = OnConflict::Rename;
    int maxAttempts = 6;        // per chunk and per file-level request
    int retryBaseDelayMs = 500; // doubled each attempt, with jitter
    int transferTimeoutMs = 60000;
    int progressIntervalMs = 100;   // at most this often; the final update always goes out
    qint64 maxOfflineMs = 0;        // give up after this long with no endpoint answering; 0: wait
    bool filesInOrder = false;      // --order files: earlier files' chunks go first
    double limitBytesPerSecond = 0; // --limit-rate; 0: no limit
    // Auto chunk size: a file's chunks are at most size / (8 x connections), so even a file a
    // few times the chunk size spreads over every connection; adaptTo() may change chunkSize.
    bool spreadFilesOverConnections = false;
    // Find the number of connections by measuring (up to `connections`), instead of using it
    // as given; and weigh endpoints by their measured goodput.
    bool tuneConnections = false;
    bool scoreEndpoints = true;
    // A resumed upload whose held chunks no longer match the source (changed in place, size and
    // mtime kept): true sends those chunks again (the result is the file as it is now), false
    // fails the file (--on-change fail).
    bool resendChangedChunks = true;
    EndpointMonitor::Options monitor;
};

// Totals for front ends, sent at most every progressIntervalMs.
struct TransferProgress {
    qint64 bytesTotal = 0;
    qint64 bytesDone = 0; // acknowledged plus what in-flight requests have sent
    qint64 bytesSent = 0; // bytes put on the wire, resends included (0 when all was already there)
    int filesTotal = 0;
    int filesDone = 0;
    int filesSkipped = 0;
    int filesFailed = 0;
    double bytesPerSecond = 0;
    qint64 elapsedMs = 0;
    bool online = true; // false: every endpoint is down, waiting for the network
    bool paused = false;
};

// What went to one endpoint, for the summary and the status bar.
struct EndpointStats {
    int chunks = 0;   // chunk and whole-file requests acknowledged
    qint64 bytes = 0; // body bytes acknowledged
    int failures = 0; // requests that failed (and were retried or gave up)
};

// Keeps N connections busy across many files and many chunks at once: opens files as room
// allows, spreads chunks over the endpoints, retries what failed, completes what is whole.
// Files take turns (round-robin) so no file hogs the connections.
class TransferScheduler : public QObject {
    Q_OBJECT
public:
    TransferScheduler(EndpointPool &pool, const TransferOptions &options, QObject *parent = nullptr);
    ~TransferScheduler() override;

    void addFiles(const QList<SourceFile> &files);
    // The OS says the network came back (ReachabilityHint): check the endpoints that are out now.
    void networkReachable() { m_monitor.networkReachable(); }
    // The link was measured again (the network changed under the upload): files not started yet
    // take the chunk size it calls for, when the chunk size is automatic, and a self-tuned level
    // is searched for again from the start. Files under way keep their chunks.
    void adaptTo(const LinkEstimate &estimate);
    void start();
    bool isFinished() const { return m_finished; }

    // Pausing cancels the requests in flight (their chunks are sent again on resume, nothing is
    // counted twice) and closes idle connections: a paused transfer holds no connection.
    void pause();
    void resume();
    bool isPaused() const { return m_paused; }
    void setJobPaused(int id, bool paused);
    // Stops one file for good (its requests are cancelled; the receiver expires what it holds).
    void cancelJob(int id);
    // Queues a failed or cancelled file again; the receiver still has what it acknowledged.
    void retryJob(int id);
    // Bytes of this file acknowledged or sent by requests in flight.
    qint64 jobBytesDone(int id) const;
    bool isOnline() const { return m_monitor.isOnline(); }
    int connectionsInUse() const { return m_connections; }

    int jobCount() const { return int(m_jobs.size()); }
    const TransferJob &job(int id) const { return m_jobs.at(std::size_t(id)); }
    TransferProgress progress() const;
    const QList<EndpointStats> &endpointStats() const { return m_endpointStats; }

Q_SIGNALS:
    void fileStarted(int job);
    void fileFinished(int job); // Done, Skipped, Failed or Cancelled: see job(id).state()
    // The files whose state or progress changed since the last tick, sent with progressChanged
    // (at most every progressIntervalMs): one batched update for a table, not one per chunk.
    void jobsChanged(const QList<int> &jobs);
    void progressChanged(const multilane::TransferProgress &progress);
    void onlineChanged(bool online);
    void endpointDown(int endpoint, const QString &why);
    void endpointUp(int endpoint);
    // Something the user should know about one file that is not a failure.
    void warning(int job, const QString &message);
    // For the resume journal: the receiver accepted a create / acknowledged a chunk.
    void uploadAttached(int job);
    void chunkAcknowledged(int job, int chunk);
    void finished();

private:
    enum class RequestKind { Create, Chunk, Complete, Single, Abort };
    struct InFlight {
        RequestKind kind;
        int job;
        int chunk = -1;
        std::uint64_t chunkHash = 0;
        QString uploadId; // the upload this request belonged to, to ignore answers from a replaced one
        EndpointLease lease;
        qint64 sent = 0;
        bool cancelled = false; // aborted by pause: not a failure
        qint64 startedMs = 0;
    };

    void pump();
    void activateQueuedJobs();
    void startChunkHashing();
    bool dispatchNext(const EndpointLease &lease);
    enum class Pick { RoundRobin, Earliest }; // Earliest: the first open file in start order
    TransferJob *nextJobWith(bool (*wants)(const TransferJob &), Pick pick = Pick::RoundRobin);
    bool dispatchCreate(const EndpointLease &lease);
    bool dispatchChunk(const EndpointLease &lease);
    bool dispatchSingle(const EndpointLease &lease);
    qint64 chunkSizeFor(const SourceFile &file) const;
    bool mayPushData();

    void sendCreate(TransferJob &job, const EndpointLease &lease);
    void sendChunk(TransferJob &job, const ReadyChunk &chunk, const EndpointLease &lease);
    void sendComplete(TransferJob &job, const EndpointLease &lease);
    void sendSingle(TransferJob &job, const EndpointLease &lease);
    void sendAbort(TransferJob &job, const EndpointLease &lease);
    void accountBusySlots();
    void track(QNetworkReply *reply, const InFlight &request);

    void onReplyFinished(QNetworkReply *reply);
    void onCreateReply(TransferJob &job, const ApiReply &reply, const EndpointLease &lease);
    void onChunkReply(TransferJob &job, const InFlight &request, const ApiReply &reply);
    void onCompleteReply(TransferJob &job, const ApiReply &reply, const EndpointLease &lease);
    void onSingleReply(TransferJob &job, const ApiReply &reply, const EndpointLease &lease);
    // A refusal that ends one file: failed, kept for `multilane resume` when waiting can fix it.
    void failOnRefusal(TransferJob &job, const ApiError &error, const EndpointLease &lease);
    // 401: the endpoint refuses our token, so it is out for the rest of the run; the request
    // goes again elsewhere. With every endpoint refusing, everything fails with the reason.
    void refuseEndpoint(TransferJob &job, const InFlight &request, const ApiError &error);
    void onChunkHashed(int jobId, int chunk, std::optional<std::uint64_t> hash);
    void onFileHashed(int jobId, const std::optional<FileDigest> &digest);
    // Compares the chunks the receiver already holds with the source once both are known.
    void checkHeldChunks(TransferJob &job);

    void retryJobLater(TransferJob &job, const QString &what);
    void onCancelled(TransferJob &job, const InFlight &request);
    void cancelRequests(int jobId); // -1: every job
    void onOnlineChanged(bool online);
    void failEverything(const QString &why);
    // resumable: the failure was the network's or the receiver's passing trouble, so the file
    // stays in the resume journal; otherwise (a conflict, a bad name) retrying cannot help.
    void finishJob(TransferJob &job, TransferState state, const QString &error = {}, bool resumable = false);
    bool sourceChanged(const TransferJob &job) const;
    int retryDelayMs(int attempt) const;
    QString describe(const ApiError &error, const EndpointLease &lease) const;
    QSet<int> m_refusedEndpoints; // answered 401: out until the run ends
    void emitProgress();

    EndpointPool &m_pool;
    TransferOptions m_options;
    QNetworkAccessManager m_probeManager;
    EndpointMonitor m_monitor;
    HashWorker m_hasher;
    QList<QList<QNetworkAccessManager *>> m_managers; // [endpoint][lane]
    std::vector<TransferJob> m_jobs;
    QList<EndpointStats> m_endpointStats;
    QList<int> m_active;
    QList<int> m_retryQueue;
    QSet<int> m_dirtyJobs;
    std::vector<int> m_queue;     // job ids in the order they start (biggest first, or as given)
    std::size_t m_nextQueued = 0; // m_queue's first job not started yet
    int m_roundRobin = 0;
    int m_chunksHashing = 0;
    QHash<QNetworkReply *, InFlight> m_inFlight;
    qint64 m_bytesAcknowledged = 0;
    qint64 m_bytesInFlight = 0;
    qint64 m_bytesSent = 0; // every byte sent, resends included: the rate
    RateMeter m_rate;
    RateLimiter m_limiter;
    EndpointScorer m_scorer;
    ConcurrencyTuner m_tuner;
    int m_connections; // the level in use: options.connections, or the tuner's
    int m_failures = 0;
    qint64 m_busySlotMs = 0;       // requests in flight, summed over time: how busy the level was
    qint64 m_busySlotsSinceMs = 0; // when m_busySlotMs was last brought up to date
    bool m_limiterWakeScheduled = false;
    QElapsedTimer m_clock;
    QTimer m_progressTimer;
    QTimer m_offlineTimer;
    bool m_paused = false;
    bool m_started = false;
    bool m_finished = false;
    bool m_pumping = false;
};

} // namespace multilane
