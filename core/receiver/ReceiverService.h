#pragma once

#include "ServiceMessages.h"

#include <optional>

namespace multilane {

class UploadStore;
struct Route;

// Answers protocol v1 requests (docs/protocol.md) over an UploadStore. Knows nothing of sockets,
// so tests call it directly; ReceiverServer puts it on HTTP. Thread-safe: it keeps no state.
class ReceiverService {
public:
    explicit ReceiverService(UploadStore &store);

    ServiceResponse handle(const ServiceRequest &request);
    // The checks that need neither body nor storage (route, id, index, path, lengths). The HTTP
    // layer uses it to refuse an `Expect: 100-continue` request before its body is sent.
    std::optional<ServiceResponse> precheck(const ServiceRequest &request) const;

    static constexpr qint64 MaxJsonBody = 64 * 1024;
    // The version /v1/health reports ("0.1.0").
    static QString version();

private:
    ServiceResponse dispatch(const Route &route, const ServiceRequest &request);
    ServiceResponse probe(qint64 bytes) const;
    ServiceResponse createUpload(const ServiceRequest &request);
    ServiceResponse putChunk(const Route &route, const ServiceRequest &request);
    ServiceResponse complete(const Route &route, const ServiceRequest &request);
    ServiceResponse putFile(const Route &route, const ServiceRequest &request);

    UploadStore &m_store;
};

} // namespace multilane
