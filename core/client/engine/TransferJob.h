#pragma once

#include "ChunkPlanner.h"
#include "ProtocolOutcome.h"
#include "SourceFile.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>
#include <memory>
#include <optional>

namespace multilane {

// One byte: it sits with the job's flags (a job is kept for every file of a batch).
enum class TransferState : quint8 {
    Queued,     // not started
    Preparing,  // hashing (single-request files) or creating the upload on the receiver
    Uploading,  // chunks moving
    Completing, // every chunk held; the receiver verifies the whole file
    Done,
    Skipped, // identical file already there, or --on-conflict skip
    Failed,
    Cancelled, // by the user; retry() queues it again
};
QString transferStateName(TransferState state);
bool isTerminal(TransferState state);

// What an earlier run left of a file's upload (the resume journal): its server-side id, chunk
// size and the receipts of what was acknowledged. A protocol that finds uploads only by id asks
// the server what it holds of this one before creating another.
struct KnownUpload {
    QString uploadId;
    qint64 chunkSize = 0;
    QHash<int, QByteArray> receipts;
};

// A chunk whose checksum is known and that can be sent.
struct ReadyChunk {
    int index = 0;
    QByteArray checksumHex; // in the protocol's kind
};

// Everything the scheduler knows about one file's upload. The scheduler drives the state
// machine; this class keeps the bookkeeping consistent (no chunk counted twice, none lost).
class TransferJob {
public:
    TransferJob(int id, const SourceFile &source, qint64 chunkSize);
    ~TransferJob();
    TransferJob(TransferJob &&) noexcept;
    TransferJob &operator=(TransferJob &&) noexcept;

    int id() const { return m_id; }
    const SourceFile &source() const { return m_source; }
    const ChunkPlanner &planner() const { return m_planner; }
    TransferState state() const { return m_state; }

    // Receiver-side upload (chunked files only).
    const QString &uploadId() const;
    // Adopts the server's view: its chunk size and what it holds. Held chunks with a receipt
    // count as acknowledged but stay unverified until checkHeldChunks() has compared them with
    // the source as it is now (one without a receipt, from an older receiver, cannot be checked).
    void attachUpload(const QString &uploadId, qint64 chunkSize, const QList<HeldChunk> &held);
    // Before the first create: the chunk size to ask the receiver for.
    void setRequestedChunkSize(qint64 chunkSize) { m_planner = ChunkPlanner(m_source.size, chunkSize); }

    // Chunk flow: pending -> hashing -> ready -> in flight -> acknowledged (or back to pending).
    bool hasPendingChunk() const { return m_work && !m_work->pending.isEmpty(); }
    int takePendingChunk();
    void returnToPending(int index);
    void addReady(const ReadyChunk &chunk) { work().ready.append(chunk); }
    bool hasReadyChunk() const { return m_work && !m_work->ready.isEmpty(); }
    ReadyChunk takeReadyChunk();
    int readyCount() const { return m_work ? int(m_work->ready.size()) : 0; }
    // While the first create is on its way, chunks are hashed ahead at the size asked for: the
    // connections get their first chunks when the answer comes, not a checksum's time later.
    // attachUpload() keeps those hashes where the answer keeps that size and drops them otherwise.
    bool hasChunkToHashAhead() const;
    int takeChunkToHashAhead();
    // A hash of takeChunkToHashAhead() is in: kept for the attach or dropped. False for any other
    // hash, and for one whose chunk is attached meanwhile at that size (it goes on as any other).
    bool settleHashAhead(int index, const QByteArray &checksumHex);
    int hashedAheadCount() const { return m_work ? int(m_work->hashedAhead.size()) : 0; }
    void acknowledge(int index, const QByteArray &receipt);
    // Every chunk's receipt by index (empty where none is acknowledged), for complete.
    const QList<QByteArray> &receipts() const;
    int acknowledgedChunks() const { return m_acknowledged; }
    bool allChunksAcknowledged() const { return m_acknowledged == m_planner.chunkCount(); }
    int bumpChunkAttempts(int index) { return ++work().chunkAttempts[index]; }

    // The SHA-256 is known and nothing holds a complete back (an identical file's comparison, held
    // chunks not yet compared with the source); the chunks' acknowledgements are the caller's.
    bool hasWhatCompleteNeeds() const
    {
        return !sha256().isEmpty() && !waitingForHashToCompare && !hasUnverifiedHeldChunks();
    }
    // Held chunks not yet compared with the source (complete must wait for the comparison).
    bool hasUnverifiedHeldChunks() const { return m_work && !m_work->heldToVerify.isEmpty(); }
    // The checksum of every chunk of the source as read by the whole-file pass, for chunks this size.
    void setSourceChunkChecksums(qint64 chunkSize, const QList<QByteArray> &checksums);
    const QList<QByteArray> &sourceChunkChecksums() const;
    qint64 sourceChunkHashSize() const { return m_work ? m_work->sourceHashSize : 0; }
    // Compares the unverified held chunks with the source's chunk checksums (which must be for the
    // planner's chunk size) and returns the indexes that differ; afterwards nothing is unverified.
    QList<int> checkHeldChunks();
    // An acknowledged chunk goes back to pending (its bytes on the receiver are stale).
    void unacknowledge(int index);

    qint64 acknowledgedBytes() const { return m_acknowledgedBytes; }
    // What requests in flight have sent so far, for a smooth per-file progress bar.
    qint64 bytesInFlight() const { return m_work ? m_work->bytesInFlight : 0; }
    void addBytesInFlight(qint64 delta) { work().bytesInFlight += delta; }
    void markAllAcknowledged() { m_acknowledgedBytes = m_source.size; }
    // The endpoints (pool indexes) that requests carrying this file's bytes went to, in order of
    // first use: what a front end names for it.
    QList<int> endpointsUsed() const;
    void noteEndpointUsed(int endpoint);
    // A file that arrived needs none of its work state (a batch keeps every job to its end).
    void dropWorkState() { m_work.reset(); }

    // The server completed the upload with a chunk's answer (ProtocolCapabilities::chunksComplete);
    // the file is done once the answers of its other chunks are in. Null until then.
    const FinishOutcome *finishedOnServer() const;
    void setFinishedOnServer(const FinishOutcome &outcome) { work().finishedOnServer = outcome; }

    // Whole-file SHA-256, computed in the background.
    // Kept until the file arrived (fileFinished's listeners still read it).
    const QByteArray &sha256() const;
    void setSha256(const QByteArray &hex) { work().sha256 = hex; }

    // Result.
    QString remotePath() const;
    void setRemotePath(const QString &path);
    const QString &error() const;
    void setError(const QString &error);
    // Failed, but `multilane resume` may well finish it later (network, receiver trouble).
    bool isResumable() const { return m_resumable; }
    void setResumable(bool resumable) { m_resumable = resumable; }

    // Job-level retries (create, complete, single-request upload).
    int bumpAttempts() { return ++work().jobAttempts; }

    // Flags the scheduler uses to pick the next request for this job.
    bool paused = false;
    bool needsCreate = false;
    // Find-or-create waits for the file's SHA-256 (S3 keeps it as metadata fixed at create).
    bool sha256BeforeCreate = false;
    // Its upload was found or created once in this run (an answer lost on the way may have
    // left one behind).
    bool attachAsked = false;
    // Open while the destination checks were out: created right after they answered.
    bool heldForDestinationCheck = false;
    bool isReadyToCreate() const;
    // From the journal: asked about before anything is created.
    const KnownUpload &known() const;
    void setKnown(const KnownUpload &known);
    // The identical-file check against what the receiver already holds.
    const QByteArray &existingSha256() const;
    void setExistingSha256(const QByteArray &sha256);
    bool requestInFlight = false; // create / complete / single PUT / abort
    bool waitingForHashToCompare = false;
    bool rehashingForHeldChunks = false; // the receiver kept another chunk size: hashing again

private:
    // Through JobQueue, which counts the jobs in each state.
    friend class JobQueue;
    void setState(TransferState state) { m_state = state; }
    // Back to the start for retry(): nothing attached, nothing acknowledged, no error.
    void resetForRetry();

    // Declared so that the flags and the small fields share words: one job per file of a batch.
    TransferState m_state = TransferState::Queued;
    bool m_remoteIsDestination = false; // mostly the destination asked for: then no string of its own
    bool m_resumable = false;
    int m_id;
    SourceFile m_source;
    ChunkPlanner m_planner;
    // What a job needs while it is under way, made when first needed and dropped when the file
    // arrived: most files of a big batch are small and go in one request, and a job is kept for
    // every file of the batch from the start to the end.
    struct WorkState {
        QString uploadId;
        QString error;
        KnownUpload known;
        QByteArray existingSha256;
        QByteArray sha256;
        std::optional<FinishOutcome> finishedOnServer;
        qint64 bytesInFlight = 0;
        int jobAttempts = 0; // create, complete, single request
        QList<int> pending;
        QList<ReadyChunk> ready;
        QList<bool> acked;
        QHash<int, int> chunkAttempts;
        QHash<int, QByteArray> heldToVerify; // index -> the server's receipt
        QList<QByteArray> sourceChecksums;
        qint64 sourceHashSize = 0;
        QList<QByteArray> receipts;
        int nextToHashAhead = 0;            // chunkCount() once attached: no more hashing ahead
        QHash<int, bool> hashingAhead;      // index -> still of use (the attached size is the hashed one)
        QHash<int, QByteArray> hashedAhead; // index -> checksum, until attachUpload()
    };
    WorkState &work();
    std::unique_ptr<WorkState> m_work;
    qint64 m_acknowledgedBytes = 0;
    // What few files have, kept apart so that the others pay one pointer for it: the endpoints
    // after the first (most files go to one) and a remote path other than the destination.
    struct Rare {
        QList<int> laterEndpoints;
        QString otherRemotePath;
    };
    Rare &rare();
    std::unique_ptr<Rare> m_rare;
    int m_acknowledged = 0;
    int m_firstEndpoint = -1;
};

} // namespace multilane
