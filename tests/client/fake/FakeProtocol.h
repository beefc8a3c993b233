#pragma once

#include "UploadProtocol.h"

namespace multilane::testing {

// A protocol of test requests ("PUT fake://e0/chunk/<id>/<n>") whose answers FakeTransport
// scripts by HTTP status alone (a whole file whose UploadContext says the destination was seen
// empty goes to "/whole-unlooked/<path>" instead of "/whole/<path>"): 200 is success, 0 no answer, 401 bad
// credentials, 404 the upload is gone, 409 a refusal, 422 a damaged chunk, 503 overloaded, other 5xx a
// passing fault. It lets the scheduler's state machine run in-process, with no receiver and no socket.
class FakeProtocol final : public UploadProtocol {
public:
    // finishProvesStorage: a whole file's or a complete's answer names the stored file's SHA-256,
    // the file's own unless the answer's body names another.
    explicit FakeProtocol(bool finishProvesStorage = false);
    // ProtocolCapabilities::pipelines.
    void setPipelines(bool pipelines) { m_capabilities.pipelines = pipelines; }

    const ProtocolCapabilities &capabilities() const override { return m_capabilities; }
    Exchange health(const Endpoint &endpoint) const override;
    Step<HealthOutcome> readHealth(const Endpoint &, const Exchange &, const WireReply &reply) const override;
    Exchange credentialsCheck(const Endpoint &endpoint) const override;
    std::optional<ProtocolFailure> readCredentialsCheck(const Endpoint &,
                                                        const WireReply &reply) const override;
    Exchange findOrCreate(const UploadContext &upload) const override;
    Step<AttachOutcome> readFindOrCreate(const UploadContext &upload, const Exchange &,
                                         const WireReply &reply) const override;
    Exchange resumeQuery(const UploadContext &upload) const override;
    Step<AttachOutcome> readResumeQuery(const UploadContext &upload, const Exchange &,
                                        const WireReply &reply) const override;
    Exchange sendChunk(const UploadContext &upload, const ChunkToSend &chunk) const override;
    Step<ChunkOutcome> readChunk(const UploadContext &, const Exchange &sent,
                                 const WireReply &reply) const override;
    Exchange complete(const UploadContext &upload) const override;
    Step<FinishOutcome> readComplete(const UploadContext &upload, const Exchange &,
                                     const WireReply &reply) const override;
    Exchange sendWhole(const UploadContext &upload) const override;
    Step<FinishOutcome> readWhole(const UploadContext &upload, const Exchange &,
                                  const WireReply &reply) const override;
    Exchange abort(const UploadContext &upload) const override;
    Step<AbortOutcome> readAbort(const UploadContext &, const Exchange &,
                                 const WireReply &reply) const override;

    // The failure an answer of this status stands for (nullopt for 2xx).
    static std::optional<ProtocolFailure> failureOf(const WireReply &reply);

private:
    ProtocolCapabilities m_capabilities;
};

} // namespace multilane::testing
