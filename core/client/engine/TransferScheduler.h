#pragma once

#include "ConcurrencyTuner.h"
#include "EndpointMonitor.h"
#include "EndpointPool.h"
#include "EndpointScorer.h"
#include "JobQueue.h"
#include "LinkEstimate.h"
#include "RateLimiter.h"
#include "RateMeter.h"
#include "TransferOptions.h"
#include "TransferServices.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

namespace multilane {

// Keeps N connections busy across many files and many chunks at once: opens files as room
// allows, spreads chunks over the endpoints, retries what failed, completes what is whole.
// Files take turns (round-robin) so no file hogs the connections. It speaks to the servers only
// through the UploadProtocol and WireTransport it is given (TransferServices).
class TransferScheduler : public QObject {
    Q_OBJECT
public:
    TransferScheduler(EndpointPool &pool, const TransferOptions &options, TransferServices services = {},
                      QObject *parent = nullptr);
    ~TransferScheduler() override;

    // known: per file (same order; may be shorter), what an earlier run left of its upload.
    void addFiles(const QList<SourceFile> &files, const QList<KnownUpload> &known = {});
    // The endpoint failed its check in a way waiting cannot fix (wrong protocol, untrusted
    // certificate, refused credentials): it gets nothing for the rest of the run, and what was
    // sent to it before its check answered goes elsewhere.
    void excludeEndpoint(int endpoint, const QString &why);
    // The endpoint did not answer its check; it is out until the circuit breaker's re-checks find
    // it back, and what was sent to it meanwhile goes elsewhere.
    void markUnreachable(int endpoint, const QString &why);
    // The endpoint's check is slow to answer: it gets nothing more until it does (the run lifts
    // the hold), and what it holds goes elsewhere.
    void holdUntilChecked(int endpoint);
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
    // While the link is measured again (LinkRemeasurer): no new request goes, so the probe
    // measures the link and not what this upload leaves of it. Requests in flight go on; unlike
    // pause() nothing is taken back and the transfer does not show as paused.
    void holdWhileMeasuring(bool hold);
    bool isPaused() const { return m_paused; }
    void setJobPaused(int id, bool paused);
    // Stops one file for good: its requests are cancelled and the server is told once to drop
    // its upload (not waiting for the answer; an unfinished S3 upload is stored and billed).
    void cancelJob(int id);
    // Queues a failed or cancelled file again; a failed one's server still has what it acknowledged.
    void retryJob(int id);
    // Bytes of this file acknowledged or sent by requests in flight.
    qint64 jobBytesDone(int id) const;
    bool isOnline() const { return m_monitor.isOnline(); }
    int connectionsInUse() const { return m_connections; }
    // The most connections any run opens, whatever the receivers allow: each is a socket, a
    // share of the receivers' threads and of the path's queue.
    static constexpr int MaxConnections = 256;
    // The pool's capacities changed (the receivers said what they allow): a new ceiling for the
    // tuner, or for a fixed count. rttMs: the round trip the check measured (0: not known). Until
    // the tuner has judged anything, it starts again from what is known now. Called as an
    // endpoint passes its check, which lets requests go behind those already sent to it.
    void capacityChanged(double rttMs = 0);
    // The protocol's destination checks are out: no file looks at its destination or is written
    // until destinationChecked() (what they find spares each file its own look, in a round trip
    // the checks take anyway).
    void awaitDestinationCheck() { m_awaitingDestinationCheck = true; }
    // NoObjects: files need not look before they are written (UploadContext::destinationWasEmpty),
    // up to the first file this run stores; files queued after that look first (one of this
    // run's own objects may be at their name). NoUnfinishedUploads: no file's upload is looked
    // for (UploadContext::noUnfinishedUploads) the first time it is attached.
    void destinationFound(DestinationFinding finding);
    // The checks answered (or are given up on): the files they held go, and those open now are
    // created without a look where the destination was found empty.
    void destinationChecked();
    bool isSelfTuned() const { return m_options.tuneConnections; }
    // Before capacityChanged() and start(): TransferOptions::startLevel and startRatePerConnection.
    void setStartLevel(int level, double ratePerConnection)
    {
        m_options.startLevel = level;
        m_options.startRatePerConnection = ratePerConnection;
    }
    const ConcurrencyTuner &tuner() const { return m_tuner; }
    const UploadProtocol &protocol() const { return *m_services.protocol; }

    int jobCount() const { return m_jobs.count(); }
    const TransferJob &job(int id) const { return m_jobs.job(id); }
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
    // For the resume journal: the server accepted a create / acknowledged a chunk (its receipt
    // is job(id).receipts().at(chunk)).
    void uploadAttached(int job);
    void chunkAcknowledged(int job, int chunk);
    void finished();

private:
    enum class RequestKind { Create, Query, Chunk, Complete, Single, Abort };
    struct InFlight {
        RequestKind kind = RequestKind::Create;
        int job = -1;
        int chunk = -1;
        QByteArray checksumHex;
        QString uploadId; // the upload this request belonged to, to ignore answers from a replaced one
        EndpointLease lease;
        Exchange exchange; // what was sent, for the protocol to read the answer
        qint64 sent = 0;
        bool cancelled = false; // aborted by pause: not a failure
        qint64 startedMs = 0;
        // Pipelining: a request sent behind `ahead` on its connection holds no lease of its own
        // and is not counted in the level; when ahead ends, it takes ahead's lease and place.
        WireCall *ahead = nullptr;
        WireCall *behind = nullptr;
        bool holdsLease = true;
        // While the connections drain down to a lowered level: its connection is one of those kept
        // (requests still go behind it), the others get nothing more.
        bool keptThroughDrain = false;
    };

    void pump();
    // Requests in flight that count in the level: not those sent behind another.
    int requestsAtLevel() const { return int(m_inFlight.size()) - m_requestsBehind; }
    // Sends a ready chunk (else a whole file) behind `ahead`, the last request on its connection,
    // a chunk or whole file whose body is all written, where the protocol allows it, the
    // connections are not above the level and those behind the first carry under m_pipelineBytes.
    void sendBehind(WireCall *ahead);
    // sendBehind() for the requests that were last on their connection, their bodies written,
    // when there was nothing to send behind them (m_waitingForWork).
    void sendBehindThoseWaitingForWork();
    void waitForWork(WireCall *tail);
    // Towards an upload's end: would `bytes` sent to this endpoint, behind `bytesAhead` on its
    // connection, arrive clearly later than the rest of the work on the faster ones? Then it is
    // left to them: the upload would otherwise end when a slow endpoint's last requests do.
    bool leaveToFasterEndpoints(int endpoint, qint64 bytes, qint64 bytesAhead) const;
    // How many bytes may wait behind the request a connection to this endpoint is answered for.
    qint64 pipelineBytesFor(int endpoint) const;
    // Above the level: is `ahead`'s connection one of the level's worth kept through the drain?
    bool isKeptThroughDrain(WireCall *ahead);
    static bool isBodyWritten(const InFlight &request)
    {
        return request.exchange.request.file && request.sent == request.exchange.request.file->length;
    }
    // `request` ended: the one behind it takes its place and lease; returns that one, if any.
    WireCall *handOnPlace(InFlight &request);
    void releaseLease(const InFlight &request);
    void warmUpForChunksToCome();
    void openQueuedJobs();
    void startChunkHashing();
    bool dispatchNext(const EndpointLease &lease);
    bool dispatchCreate(const EndpointLease &lease);
    bool dispatchChunk(const EndpointLease &lease);
    // laterBatchOnly: only a file of a later batch than every file with a chunk ready.
    bool dispatchSingle(const EndpointLease &lease, bool laterBatchOnly = false);
    qint64 chunkSizeFor(const SourceFile &file) const;
    // How many connections a file's chunks should be spread over.
    int expectedConnections() const;
    // The checks measured a round trip this short: a LAN.
    bool isLan() const { return m_roundTripMs > 0 && m_roundTripMs < ConcurrencyTuner::LanRttMs; }
    static ConcurrencyTuner::Options tunerOptionsFor(const EndpointPool &pool, const TransferOptions &options,
                                                     double rttMs);
    static constexpr qint64 MinSpreadChunk = 256 * 1024;      // and a file this small goes whole
    static constexpr qint64 MinPathChunk = 64 * 1024;         // the floor across a path with a round trip
    static constexpr double MaxChunkSecondsRemembered = 0.25; // of a remembered connection's rate
    bool mayPushData();

    UploadContext contextFor(const TransferJob &job, const EndpointLease &lease) const;
    void send(const InFlight &request);
    void track(WireCall *call, const InFlight &request); // a call just sent
    InFlight chunkRequest(const TransferJob &job, const ReadyChunk &chunk, const EndpointLease &lease) const;
    // The file's SHA-256 for a chunk that may be the last of its file to arrive, so the server
    // completes the upload with it; empty when the file is not ready to complete then.
    QByteArray completionFor(const TransferJob &job) const;
    InFlight wholeRequest(const TransferJob &job, const EndpointLease &lease) const;
    // What a request about to go takes: its bytes from the rate limit; a whole file, its state.
    void takeForSending(TransferJob &job, const InFlight &request);
    void sendComplete(TransferJob &job, const EndpointLease &lease);
    void accountBusySlots();

    void onCallFinished(WireCall *call);
    // The operation's next request goes out on the connection the last one used; true if so.
    template<typename Outcome> bool followUp(const Step<Outcome> &step, InFlight &request);
    void recordAnswer(const InFlight &request, const ProtocolFailure *failure);
    // The data requests out into the scorer, and the scores into the pool: a request out says
    // more the longer it takes.
    void scoreRequestsOut();
    void updatePoolScores();
    void handleAnswer(TransferJob &job, InFlight &request, const WireReply &reply);
    void onCreateAnswer(TransferJob &job, const AttachOutcome &outcome);
    void onChunkAnswer(TransferJob &job, const InFlight &request, const Step<ChunkOutcome> &step);
    void onCompleteFailure(TransferJob &job, const ProtocolFailure &failure);
    void onFinishAnswer(TransferJob &job, const FinishOutcome &outcome);
    // 401 and the like: the endpoint refuses our credentials, so it is out for the rest of the run;
    // the request goes again elsewhere. With every endpoint refusing, everything fails.
    void refuseEndpoint(TransferJob &job, const InFlight &request, const ProtocolFailure &failure);
    // Work the request carried goes back where it came from (cancelled, or sent elsewhere).
    void putBack(TransferJob &job, const InFlight &request);
    // A failure from an endpoint whose check has not answered yet is not the work's: the work goes
    // back, unharmed, and the endpoint gets nothing more until its check says what it is.
    bool waitForCheck(TransferJob &job, const InFlight &request);
    void onChunkHashed(int jobId, int chunk, const std::optional<QByteArray> &checksumHex);
    void onFileHashed(int jobId, const std::optional<FileDigest> &digest);
    // Compares the chunks the server already holds with the source once both are known.
    void checkHeldChunks(TransferJob &job);

    // unanswered: no answer came at all (the endpoint's fault, not the file's): it uses up none of
    // the file's attempts and waits only the first retry's delay.
    void retryJobLater(TransferJob &job, const QString &what, bool unanswered = false);
    void cancelRequests(int jobId, int endpoint = -1); // -1: every job, every endpoint
    void abortOnServer(const TransferJob &job);
    void onOnlineChanged(bool online);
    void failEverything(const QString &why);
    // resumable: the failure was the network's or the server's passing trouble, so the file
    // stays in the resume journal; otherwise (a conflict, a bad name) retrying cannot help.
    void finishJob(TransferJob &job, TransferState state, const QString &error = {}, bool resumable = false);
    bool sourceChanged(const TransferJob &job) const;
    void failAsChanged(TransferJob &job);
    int retryDelayMs(int attempt) const;
    void emitProgress();
    qint64 now() const { return m_services.clockMs(); }

    EndpointPool &m_pool;
    TransferOptions m_options;
    TransferServices m_services;
    EndpointMonitor m_monitor;
    JobQueue m_jobs;
    QList<EndpointStats> m_endpointStats;
    QSet<int> m_dirtyJobs;
    QSet<int> m_refusedEndpoints; // refused our credentials: out until the run ends
    int m_chunksHashing = 0;
    QHash<WireCall *, InFlight> m_inFlight;
    int m_requestsBehind = 0; // of m_inFlight, sent behind another (pipelined)
    // Of m_inFlight, those whose bodies were written when nothing was ready to go behind them, in
    // that order: the next work that becomes ready goes behind them.
    QList<WireCall *> m_waitingForWork;
    // How many bytes may wait behind the request a connection's answer comes for: twice what a
    // connection sends while an answer comes back. Until a second of the transfer is measured,
    // what one request of MinSpreadChunk behind another allowed: a rate measured sooner is the
    // connections' slow start and the requests' first round trip, and would hold them there.
    qint64 m_pipelineBytes = MinSpreadChunk;
    static constexpr int MaxRequestsBehind = 32;
    static constexpr qint64 RecentRateMs = 1000;
    static constexpr qint64 LatestRateMs = 300;
    static constexpr qint64 ScoreRequestsOutEveryMs = 50;
    qint64 m_requestsOutScoredMs = -ScoreRequestsOutEveryMs; // when scoreRequestsOut() last ran
    qint64 m_bytesAcknowledged = 0;
    qint64 m_bytesInFlight = 0;
    qint64 m_bytesSent = 0;       // every byte sent, resends included: the rate
    qint64 m_bytesDelivered = -1; // acknowledged at the TCP level (the transport's count), -1: unknown
    RateMeter m_rate;
    RateMeter m_recentRate{RecentRateMs}; // for m_pipelineBytes: it must follow a level's change quickly
    RateMeter m_latestRate{LatestRateMs}; // for leaveToFasterEndpoints()
    RateLimiter m_limiter;
    EndpointScorer m_scorer;
    ConcurrencyTuner m_tuner;
    int m_connections;      // the level in use: options.connections, or the tuner's
    int m_fixedConnections; // as asked, when not tuned
    int m_failures = 0;
    int m_overloads = 0;
    bool m_destinationSeenEmpty = false;
    bool m_noUnfinishedUploadsSeen = false;
    bool m_awaitingDestinationCheck = false;
    int m_keptForLevel = -1;          // the level the connections kept through a drain were chosen for
    int m_jobsBeforeFirstStored = -1; // how many jobs were queued when the first file was stored
    double m_roundTripMs = 0;         // a request's, from the endpoint check (0: not known)
    qint64 m_busySlotMs = 0;          // requests in flight, summed over time: how busy the level was
    qint64 m_busySlotsSinceMs = 0;    // when m_busySlotMs was last brought up to date
    qint64 m_startedMs = 0;
    bool m_limiterWakeScheduled = false;
    QTimer m_progressTimer;
    QTimer m_offlineTimer;
    bool m_paused = false;
    bool m_heldForMeasurement = false;
    bool m_started = false;
    bool m_finished = false;
    bool m_pumping = false;
    bool m_laterBatchTurn = false; // every other dispatch, a later batch's whole file may go first
};

} // namespace multilane
