#pragma once

#include "ChunkChecksum.h"
#include "ConflictPolicy.h"
#include "Endpoint.h"
#include "ProtocolOutcome.h"
#include "SourceFile.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace multilane {

// What a protocol can and cannot do, declared so the engine adapts instead of naming protocols.
struct ProtocolCapabilities {
    QString name;                 // for messages: "multilane", "S3"
    qint64 minChunkSize = 1;      // but the last chunk of a file
    qint64 maxChunkSize = 0;      // 0: no limit
    int maxChunks = 0;            // per file; 0: no limit
    int firstChunkNumber = 0;     // on the wire: ours counts from 0, S3's parts from 1
    bool chunksInParallel = true; // several chunks of one file may be in flight at once
    ChunkChecksumKind chunkChecksum = ChunkChecksumKind::Xxh3;
    bool serverVerifiesFile = true;   // the server checks the whole file's SHA-256 at complete
    bool serverFixesChunkSize = true; // a resumed upload keeps the chunk size its server chose
    // The server finds an unfinished upload by its id only (S3): a resumed file's known upload
    // is asked about with resumeQuery before find-or-create. Ours finds it by the file's key.
    bool resumesByQuery = false;
    bool hasProbeRoute = false;  // PUT /v1/discard for the link probe and the speed test
    qint64 maxSingleRequest = 0; // the largest whole-file request; 0: no limit
    // Chunked files up to this size wait for their SHA-256 before find-or-create: S3 keeps it as
    // metadata fixed at create, and finds an identical object by it. 0: nothing waits (ours
    // takes the hash at complete).
    qint64 sha256BeforeCreateUpTo = 0;
    // A whole file's or a complete's success proves the server stored this file's bytes (ours
    // names their SHA-256; S3's ETag, checked, is their MD5 or that of the parts' MD5s), so an
    // endpoint whose check has not answered yet may end files.
    bool finishProvesStorage = false;
    // A chunk or a whole file may go behind another on one connection (HTTP/1.1 pipelining): the
    // server answers pipelined requests in order, and one sent twice (when the shared connection
    // ends first) does no harm: a chunk is written again in place, a whole file is found there.
    bool pipelines = false;
    // A chunk may bring the file's SHA-256 (ChunkToSend::completeWithSha256Hex): the server then
    // completes the upload when the last chunk is in and says so in that chunk's answer
    // (ChunkOutcome::finished), which saves the complete's round trip. Without that answer the
    // client completes as usual.
    bool chunksComplete = false;
};

// One file's upload as a protocol needs to see it for any of its requests.
struct UploadContext {
    Endpoint endpoint;
    SourceFile source;
    qint64 chunkSize = 0;
    QString uploadId;     // empty until attached (or known from the journal)
    QByteArray sha256Hex; // empty until the whole-file pass is done
    ConflictPolicy onConflict = ConflictPolicy::Rename;
    // complete: every chunk's receipt, by index (S3 lists the parts' ETags).
    QList<QByteArray> receipts;
    // the source's chunk checksums (hex, capabilities().chunkChecksum), when known: S3 checks
    // the object's ETag against them.
    QList<QByteArray> sourceChunkChecksums;
    // The destination check found nothing there, and the file was queued before this run stored
    // any: no look before writing it (S3: no HEAD before a conditional PutObject).
    bool destinationWasEmpty = false;
    // The destination check found nothing there, and the file's upload waited for that answer,
    // so it is as fresh as a look of the file's own would be: no look before the upload is
    // created (S3: no HEAD).
    bool destinationEmptyAtAttach = false;
    // The destination check listed no unfinished upload there, and this file's upload was never
    // asked for in this run: none can be found to take up (S3: no ListMultipartUploads).
    bool noUnfinishedUploads = false;
};

struct ChunkToSend {
    int index = 0;
    qint64 offset = 0;
    qint64 length = 0;
    QByteArray checksumHex; // capabilities().chunkChecksum of these bytes
    // The file's SHA-256 where this chunk may be the last to arrive (capabilities().chunksComplete).
    QByteArray completeWithSha256Hex;
};

// The client side of a wire protocol: builds each request of an upload and reads its answer into
// a typed outcome. Stateless between calls (what an operation needs from one request to the next
// travels in Exchange::state), so one instance serves every file and endpoint of a batch.
// Ours (protocol/v1) is the first; S3 multipart (protocol/s3) the second.
class UploadProtocol {
public:
    virtual ~UploadProtocol() = default;

    virtual const ProtocolCapabilities &capabilities() const = 0;

    // Is the endpoint there, and what does it say of itself? (The circuit breaker's re-check.)
    virtual Exchange health(const Endpoint &endpoint) const = 0;
    // Where an upload's requests to this endpoint go (scheme, host, port), so connections can be
    // opened for them before they are sent.
    virtual QUrl uploadOrigin(const Endpoint &endpoint) const { return endpoint.url; }
    virtual Step<HealthOutcome> readHealth(const Endpoint &endpoint, const Exchange &sent,
                                           const WireReply &reply) const = 0;
    // Does a healthy endpoint take our credentials? Asked once before an upload, so a wrong
    // token or key is said before any file is touched.
    virtual Exchange credentialsCheck(const Endpoint &endpoint) const = 0;
    virtual std::optional<ProtocolFailure> readCredentialsCheck(const Endpoint &endpoint,
                                                                const WireReply &reply) const = 0;
    // Requests, sent once at the start, that can tell what no file needs to ask for itself: that
    // the destination holds nothing yet (S3: the prefix lists no key) and that nothing was left
    // unfinished there (S3: no multipart upload under the prefix). Empty: nothing to ask (ours
    // decides conflicts on the receiver, in the request that writes).
    virtual QList<Exchange> destinationChecks(const Endpoint &) const { return {}; }
    // Nothing unless the answer shows it plainly; a refusal, keys, uploads: Nothing.
    virtual DestinationFinding readDestinationCheck(const Endpoint &, const Exchange &,
                                                    const WireReply &) const
    {
        return DestinationFinding::Nothing;
    }
    // The server's upload for a file: found again by the file's key (what it holds comes back),
    // or created.
    virtual Exchange findOrCreate(const UploadContext &upload) const = 0;
    virtual Step<AttachOutcome> readFindOrCreate(const UploadContext &upload, const Exchange &sent,
                                                 const WireReply &reply) const = 0;
    // What the server holds of an upload it has an id for.
    virtual Exchange resumeQuery(const UploadContext &upload) const = 0;
    virtual Step<AttachOutcome> readResumeQuery(const UploadContext &upload, const Exchange &sent,
                                                const WireReply &reply) const = 0;
    virtual Exchange sendChunk(const UploadContext &upload, const ChunkToSend &chunk) const = 0;
    virtual Step<ChunkOutcome> readChunk(const UploadContext &upload, const Exchange &sent,
                                         const WireReply &reply) const = 0;
    virtual Exchange complete(const UploadContext &upload) const = 0;
    virtual Step<FinishOutcome> readComplete(const UploadContext &upload, const Exchange &sent,
                                             const WireReply &reply) const = 0;
    // A file no bigger than one chunk, in one request; needs sha256Hex.
    virtual Exchange sendWhole(const UploadContext &upload) const = 0;
    virtual Step<FinishOutcome> readWhole(const UploadContext &upload, const Exchange &sent,
                                          const WireReply &reply) const = 0;
    virtual Exchange abort(const UploadContext &upload) const = 0;
    virtual Step<AbortOutcome> readAbort(const UploadContext &upload, const Exchange &sent,
                                         const WireReply &reply) const = 0;
};

} // namespace multilane
