#pragma once

#include "AccessPolicy.h"
#include "PendingCompletions.h"
#include "ReceiverLimits.h"
#include "ServiceMessages.h"
#include "UploadAdmission.h"

#include <mutex>
#include <optional>

namespace multilane {

class UploadStore;
struct Route;

// Answers protocol v1 requests (docs/protocol.md) over an UploadStore. Knows nothing of sockets,
// so tests call it directly; HttpFrontEnd puts it on HTTP. Thread-safe: its only state is
// immutable configuration, a mutex that serialises admitting and creating new uploads, and the
// completions chunks asked for while others of their upload were still arriving.
class ProtocolService {
public:
    struct Options {
        AccessPolicy access; // open by default
        ReceiverLimits limits;
        UploadAdmission::FreeSpace freeSpace; // unset: the store says (UploadStore::space())
        UploadAdmission::Clock clock;         // unset: the steady clock
    };

    explicit ProtocolService(UploadStore &store);
    ProtocolService(UploadStore &store, Options options);

    ServiceResponse handle(const ServiceRequest &request);
    // The checks that need no body (headers, token, route, id, index, path, folder, lengths). The
    // HTTP layer uses it to refuse an `Expect: 100-continue` request before its body is sent.
    std::optional<ServiceResponse> precheck(const ServiceRequest &request) const;
    // For access logs: the id of the token a request's Authorization header value presents, or "-".
    QString tokenId(const QByteArray &authorization) const { return m_options.access.tokenId(authorization); }

    static constexpr qint64 MaxJsonBody = 64 * 1024;
    // The version /v1/health reports ("0.1.0").
    static QString version();

private:
    struct Admitted;
    // Everything checked before a body is read; the route and the token that may use it.
    Result<Admitted> admit(const ServiceRequest &request) const;
    std::optional<ProtocolError> checkHeaders(const ServiceRequest &request) const;
    std::optional<ProtocolError> checkScope(const Route &route, const AccessToken &token) const;
    ServiceResponse dispatch(const Admitted &admitted, const ServiceRequest &request);
    ServiceResponse health() const;
    ServiceResponse probe(qint64 bytes) const;
    ServiceResponse createUpload(const AccessToken &token, const ServiceRequest &request);
    ServiceResponse putChunk(const Route &route, const ServiceRequest &request);
    // X-Complete-SHA256: completes the upload if this chunk was the last to end; the answer then
    // carries the completion.
    bool completeWithChunk(const Route &route, QJsonObject &answer);
    ServiceResponse complete(const Route &route, const ServiceRequest &request);
    ServiceResponse putFile(const Route &route, const AccessToken &token, const ServiceRequest &request);

    UploadStore &m_store;
    Options m_options;
    UploadAdmission m_admission;
    std::mutex m_creating; // quota and count checks and the create they allow are one step
    PendingCompletions m_pendingCompletions;
};

} // namespace multilane
