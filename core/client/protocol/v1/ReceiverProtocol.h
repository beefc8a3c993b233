#pragma once

#include "UploadProtocol.h"

namespace multilane {

struct ApiError;

// Protocol v1 (docs/protocol.md) behind the UploadProtocol seam: the routes, JSON bodies,
// headers and error codes of multilane-receiver, and nothing of them anywhere else in the engine.
class ReceiverProtocol final : public UploadProtocol {
public:
    ReceiverProtocol();

    const ProtocolCapabilities &capabilities() const override { return m_capabilities; }

    Exchange health(const Endpoint &endpoint) const override;
    Step<HealthOutcome> readHealth(const Endpoint &endpoint, const Exchange &sent,
                                   const WireReply &reply) const override;
    Exchange credentialsCheck(const Endpoint &endpoint) const override;
    std::optional<ProtocolFailure> readCredentialsCheck(const Endpoint &endpoint,
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

    // How each of the receiver's refusals is handled, and told (exposed for tests).
    static ProtocolFailure failureFor(const ApiError &error, const Endpoint &endpoint);

private:
    ProtocolCapabilities m_capabilities;
};

} // namespace multilane
