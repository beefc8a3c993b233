#pragma once

#include "EndpointPool.h"
#include "WireMessage.h"

#include <QObject>

namespace multilane {

// One request on its way. finished() comes exactly once, also after abort(); reply() is valid
// from then on. The caller owns the call and deletes it (deleteLater) once it has read it.
class WireCall : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    virtual void abort() = 0;
    virtual const WireReply &reply() const = 0;

Q_SIGNALS:
    void bytesSent(qint64 total); // of the request body, handed on so far
    void finished();
};

// How the engine's requests reach the network, handed to the scheduler so its state machine can
// be driven in-process by a fake. A lease's lane is one connection pool of its endpoint (Qt 6.4
// opens at most six connections per host and manager); lane ControlLane carries the small
// requests of health checks beside the data lanes.
class WireTransport {
public:
    static constexpr int ControlLane = -1;

    // What has left the machine so far by the kernel's count (bytes the peers acknowledged),
    // and the connections' round trip; bytes is -1 where the transport cannot tell.
    struct Delivery {
        qint64 bytes = -1;
        double rttMs = 0;
        double minRttMs = 0;
    };

    virtual ~WireTransport() = default;
    virtual WireCall *send(const EndpointLease &lease, const WireRequest &request) = 0;
    // Sends `request` on the connection that carries `ahead`, right behind it (HTTP/1.1
    // pipelining), once ahead's body is all written: that connection then carries a body while
    // it waits for ahead's answer instead of idling a round trip. The server must answer
    // pipelined requests in order, and both must be safe to send again (the one behind goes again
    // on a new connection when the shared one ends first). nullptr where the transport cannot (then
    // nothing was sent).
    virtual WireCall *sendBehind(WireCall *ahead, const EndpointLease &lease, const WireRequest &request)
    {
        Q_UNUSED(ahead);
        Q_UNUSED(lease);
        Q_UNUSED(request);
        return nullptr;
    }
    virtual Delivery delivery() { return {}; }
    // Closes kept-alive connections that carry nothing now (a paused transfer holds none).
    virtual void closeIdleConnections() = 0;
    // Opens connections to the endpoint's origin until this many are open or opening, for
    // requests about to come: their handshakes (TCP's, TLS's) then run while the requests they
    // wait for are answered. A transport that cannot does nothing.
    virtual void warmUp(int endpoint, const QUrl &origin, int connections)
    {
        Q_UNUSED(endpoint);
        Q_UNUSED(origin);
        Q_UNUSED(connections);
    }
};

} // namespace multilane
