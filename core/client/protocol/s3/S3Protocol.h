#pragma once

#include "S3ExchangeState.h"
#include "S3Requests.h"
#include "UploadProtocol.h"

namespace multilane {

class ChunkPlanner;
struct S3ConflictDecision;

struct S3ProtocolOptions {
    // Files up to this size are hashed before their upload is created, so their SHA-256 goes
    // with CreateMultipartUpload or PutObject as x-amz-meta-sha256; larger ones start sending at
    // once and get it by a copy onto themselves after the upload (docs/s3.md measures both).
    qint64 sha256BeforeCreateUpTo = qint64(256) << 20;
    // On stores where that copy only rewrites the metadata (Ceph RGW: 43-46 ms for 100 MiB or
    // 1 GiB; MinIO), waiting for a hash pass pays only while it is shorter than the copy. On
    // AWS the copy moves the data again, so there the larger threshold above holds.
    static constexpr qint64 Sha256BeforeCreateWhenCopyIsCheap = qint64(16) << 20;
    static S3ProtocolOptions forTarget(const S3Target &target);
    S3Clock clock; // signing time and when answers came; the system's UTC clock when empty
};

// S3 multipart upload (AWS S3, Ceph RGW, MinIO) behind the UploadProtocol seam, built on the
// toolkit in this folder. Every request is built and signed when the engine asks for it (the
// signature's date is fresh) and names the engine's endpoint as the gateway, so the parts of one
// upload spread over every gateway of a store. docs/s3.md maps each operation to its requests.
class S3Protocol final : public UploadProtocol {
public:
    S3Protocol(S3Target target, S3Credentials credentials, S3ProtocolOptions options = {});

    const ProtocolCapabilities &capabilities() const override { return m_capabilities; }
    const S3Target &target() const { return m_requests.target(); }

    Exchange health(const Endpoint &endpoint) const override;
    QUrl uploadOrigin(const Endpoint &endpoint) const override { return target().bucketUrl(endpoint.url); }
    Step<HealthOutcome> readHealth(const Endpoint &endpoint, const Exchange &sent,
                                   const WireReply &reply) const override;
    Exchange credentialsCheck(const Endpoint &endpoint) const override;
    std::optional<ProtocolFailure> readCredentialsCheck(const Endpoint &endpoint,
                                                        const WireReply &reply) const override;
    QList<Exchange> destinationChecks(const Endpoint &endpoint) const override;
    DestinationFinding readDestinationCheck(const Endpoint &endpoint, const Exchange &sent,
                                            const WireReply &reply) const override;
    Exchange findOrCreate(const UploadContext &upload) const override;
    Step<AttachOutcome> readFindOrCreate(const UploadContext &upload, const Exchange &sent,
                                         const WireReply &reply) const override;
    Exchange resumeQuery(const UploadContext &upload) const override;
    Step<AttachOutcome> readResumeQuery(const UploadContext &upload, const Exchange &sent,
                                        const WireReply &reply) const override;
    Exchange sendChunk(const UploadContext &upload, const ChunkToSend &chunk) const override;
    Step<ChunkOutcome> readChunk(const UploadContext &upload, const Exchange &sent,
                                 const WireReply &reply) const override;
    Exchange complete(const UploadContext &upload) const override;
    Step<FinishOutcome> readComplete(const UploadContext &upload, const Exchange &sent,
                                     const WireReply &reply) const override;
    Exchange sendWhole(const UploadContext &upload) const override;
    Step<FinishOutcome> readWhole(const UploadContext &upload, const Exchange &sent,
                                  const WireReply &reply) const override;
    Exchange abort(const UploadContext &upload) const override;
    Step<AbortOutcome> readAbort(const UploadContext &upload, const Exchange &sent,
                                 const WireReply &reply) const override;

private:
    using State = S3ExchangeState;
    using Stage = S3ExchangeState::Stage;

    // One request of an operation and the state its answer is read with.
    Exchange exchange(const S3Request &request, State state, const QString &localPath = {}) const;
    // An operation that cannot send what it should: a harmless HEAD whose answer is `failure`.
    Exchange refused(const Endpoint &endpoint, const ProtocolFailure &failure) const;
    S3Reply received(const WireReply &reply) const;
    static State stateOf(const Exchange &sent) { return sent.state.value<State>(); }
    // What a Refused exchange (or one this operation never sent) reads as.
    static ProtocolFailure refusal(const State &state);
    // The key and S3 upload id an UploadContext's upload id stands for.
    State uploadState(const UploadContext &upload) const;

    // The destination path and object key (state.renameNumber's name); a refusal for a name S3
    // cannot take.
    std::optional<Exchange> name(const UploadContext &upload, State &state) const;
    // find-or-create and a whole file both start by looking at the destination.
    Exchange conflictHead(const UploadContext &upload, State state) const;
    // find-or-create once the name is free to take: an upload a lost journal left, else a new one.
    Exchange findUnfinishedOrCreate(const UploadContext &upload, const State &state) const;
    // The HEAD's answer: nullopt when the object may be written (state.path/key/existingSha256
    // then say where), else the operation's next request or its end (via onDecision).
    template<typename Outcome>
    std::optional<Step<Outcome>> readConflict(const UploadContext &upload, State &state,
                                              const WireReply &reply, Outcome skipped) const;
    Exchange listUploads(const UploadContext &upload, State state, const QString &keyMarker = {},
                         const QString &uploadIdMarker = {}) const;
    Exchange listParts(const UploadContext &upload, State state, int partNumberMarker = 0) const;
    Exchange create(const UploadContext &upload, State state) const;
    Step<AttachOutcome> readListUploads(const UploadContext &upload, State state, const S3Reply &reply) const;
    // resuming: the upload is the journal's (gone means Recreate), not one found by listing.
    Step<AttachOutcome> readListParts(const UploadContext &upload, State state, const S3Reply &reply,
                                      bool resuming) const;
    AttachOutcome attached(const UploadContext &upload, const State &state) const;
    QString handleOf(const UploadContext &upload, const State &state) const;

    Exchange headAfterComplete(const UploadContext &upload, State state) const;
    Step<FinishOutcome> readHeadAfterComplete(const UploadContext &upload, State state,
                                              const S3Reply &reply) const;
    Exchange put(const UploadContext &upload, State state) const;
    Step<FinishOutcome> readPut(const UploadContext &upload, const State &state, const S3Reply &reply) const;
    FinishOutcome finished(const UploadContext &upload, const State &state) const;

    S3Requests m_requests;
    S3ProtocolOptions m_options;
    ProtocolCapabilities m_capabilities;
};

} // namespace multilane
