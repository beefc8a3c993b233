#pragma once

#include "WireTransport.h"

#include <QList>
#include <memory>

namespace multilane {

class ConnectionPool;

// The lean transport: our own HTTP/1.1 keep-alive client on non-blocking sockets in the
// thread's event loop, instead of Qt's QNetworkAccessManager (which reads a body in 16 KiB
// pieces in this thread, hands them to its own thread to write in smaller ones, opens at most
// six connections per host and manager, and hides its sockets). Plain http bodies go from the
// file to the socket with sendfile(); https goes through QSslSocket with TlsTrust's trust.
// Connections have TCP_NODELAY from the start and are read with TCP_INFO directly. Redirects
// are answers like any other (never followed). NetworkTransport stays as the fallback
// (WireTransports::make, MULTILANE_TRANSPORT=qt).
class DirectTransport final : public WireTransport {
public:
    DirectTransport(const EndpointPool &pool, int transferTimeoutMs);
    // Control requests only (health checks before a pool exists).
    DirectTransport(const QList<Endpoint> &endpoints, int transferTimeoutMs);
    ~DirectTransport() override;

    WireCall *send(const EndpointLease &lease, const WireRequest &request) override;
    WireCall *sendBehind(WireCall *ahead, const EndpointLease &lease, const WireRequest &request) override;
    void closeIdleConnections() override;
    void warmUp(int endpoint, const QUrl &origin, int connections) override;
    Delivery delivery() override;
    int openConnections() const;

private:
    // The call for `request`, not yet queued (an UnsentCall when its file cannot be opened).
    WireCall *makeCall(const EndpointLease &lease, const WireRequest &request);

    QList<Endpoint> m_endpoints;
    int m_transferTimeoutMs;
    QByteArray m_userAgent;
    std::unique_ptr<ConnectionPool> m_pool;
    bool m_pipelines; // MULTILANE_PIPELINING=off sends nothing behind another (benchmarks' A/B)
};

} // namespace multilane
