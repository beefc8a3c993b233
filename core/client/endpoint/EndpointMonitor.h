#pragma once

#include "EndpointPool.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QTimer>
#include <functional>

namespace multilane {

class UploadProtocol;
class WireCall;
class WireTransport;
struct Exchange;

// The circuit breaker: an endpoint whose requests fail on the network several times in a row, or
// that fails the health check a first such failure brings, is taken out of the pool, re-checked in
// the background with capped exponential backoff, and put back the moment its health check answers. When
// every endpoint is out, the transfer is offline ("waiting for network") until one comes back.
class EndpointMonitor : public QObject {
    Q_OBJECT
public:
    struct Options {
        int failuresToTrip = 3;
        int firstProbeDelayMs = 250;
        int maxProbeDelayMs = 30000;
        int probeTimeoutMs = 5000;
        // For this long after an endpoint goes out it is re-checked at least this often, so a
        // receiver restarted (or a link back) within a minute gets data again within about
        // quickProbeDelayMs and a round trip; a check of a closed port costs nothing on the wire.
        int quickProbeDelayMs = 500;
        int quickPeriodMs = 60000;
    };

    // Health checks go out through `transport`, built and read by `protocol`.
    EndpointMonitor(EndpointPool &pool, const UploadProtocol &protocol, WireTransport &transport,
                    const Options &options, QObject *parent = nullptr);

    // A request to this endpoint got an answer / got none (refused, reset, timed out).
    void recordSuccess(int endpoint);
    void recordNetworkFailure(int endpoint);
    // Out now, whatever its count (it did not answer a check): re-checked like a tripped one.
    void takeOut(int endpoint, const QString &why);
    bool isOnline() const { return m_pool.upCount() > 0; }
    // The OS says the network is back (ReachabilityHint): every endpoint that is out is checked
    // now instead of at the end of its backoff, and its backoff starts over.
    void networkReachable();

Q_SIGNALS:
    void endpointDown(int endpoint, const QString &why);
    void endpointUp(int endpoint);
    void onlineChanged(bool online);

private:
    struct State {
        int consecutiveFailures = 0;
        int probeDelayMs = 0;
        bool waiting = false;    // a probe is scheduled
        bool inFlight = false;   // a probe is running
        bool confirming = false; // a check after a request's failure, while still in the pool
        int outs = 0;            // times taken out (a confirming check that outlived one is stale)
        int generation = 0;      // a scheduled probe of an older generation was superseded
        QElapsedTimer out;       // since it was taken out
    };
    void scheduleProbe(int endpoint);
    void probe(int endpoint);
    // After a failure of an endpoint still in the pool: out at once if its health check fails too.
    void confirm(int endpoint);
    QString stoppedAnswering(int endpoint) const;
    void sendCheck(int endpoint, const Exchange &exchange, const std::function<void(bool healthy)> &done);
    void onProbeAnswered(int endpoint, bool healthy);

    EndpointPool &m_pool;
    const UploadProtocol &m_protocol;
    WireTransport &m_transport;
    Options m_options;
    QList<State> m_states;
};

} // namespace multilane
