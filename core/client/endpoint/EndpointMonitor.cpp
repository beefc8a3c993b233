#include "EndpointMonitor.h"

#include "UploadProtocol.h"
#include "WireTransport.h"

#include <QLoggingCategory>

// QT_LOGGING_RULES="multilane.endpoints.debug=true" shows the circuit breaker's decisions.
Q_LOGGING_CATEGORY(lcEndpoints, "multilane.endpoints", QtWarningMsg)

namespace multilane {

EndpointMonitor::EndpointMonitor(EndpointPool &pool, const UploadProtocol &protocol, WireTransport &transport,
                                 const Options &options, QObject *parent)
    : QObject(parent)
    , m_pool(pool)
    , m_protocol(protocol)
    , m_transport(transport)
    , m_options(options)
    , m_states(pool.endpointCount())
{}

void EndpointMonitor::recordSuccess(int endpoint)
{
    m_states[endpoint].consecutiveFailures = 0;
}

void EndpointMonitor::recordNetworkFailure(int endpoint)
{
    State &state = m_states[endpoint];
    if (!m_pool.isUp(endpoint))
        return;
    if (++state.consecutiveFailures >= m_options.failuresToTrip) {
        takeOut(endpoint, stoppedAnswering(endpoint));
        return;
    }
    // One request without an answer may be a passing fault, or the receiver gone. Waiting for more
    // of the upload's requests to fail there can take long or never end: the scorer sends fewer to
    // an endpoint that failed, and the last of an upload may go elsewhere. A check says now.
    confirm(endpoint);
}

void EndpointMonitor::confirm(int endpoint)
{
    State &state = m_states[endpoint];
    if (state.confirming)
        return;
    state.confirming = true;
    const int outs = state.outs;
    sendCheck(endpoint, m_protocol.health(m_pool.endpoint(endpoint)), [this, endpoint, outs](bool healthy) {
        m_states[endpoint].confirming = false;
        if (!healthy && m_states[endpoint].outs == outs)
            takeOut(endpoint, stoppedAnswering(endpoint));
    });
}

QString EndpointMonitor::stoppedAnswering(int endpoint) const
{
    return QStringLiteral("%1 stopped answering").arg(m_pool.endpoint(endpoint).displayName());
}

void EndpointMonitor::takeOut(int endpoint, const QString &why)
{
    if (!m_pool.isUp(endpoint))
        return;
    const bool wasOnline = isOnline();
    m_pool.setUp(endpoint, false);
    ++m_states[endpoint].outs;
    m_states[endpoint].probeDelayMs = m_options.firstProbeDelayMs;
    m_states[endpoint].out.start();
    qCDebug(lcEndpoints) << "out:" << endpoint << why;
    Q_EMIT endpointDown(endpoint, why);
    if (wasOnline && !isOnline())
        Q_EMIT onlineChanged(false);
    scheduleProbe(endpoint);
}

void EndpointMonitor::scheduleProbe(int endpoint)
{
    State &state = m_states[endpoint];
    if (state.waiting || state.inFlight)
        return;
    state.waiting = true;
    const int generation = ++state.generation;
    QTimer::singleShot(state.probeDelayMs, this, [this, endpoint, generation] {
        State &scheduled = m_states[endpoint];
        if (!scheduled.waiting || scheduled.generation != generation)
            return;
        scheduled.waiting = false;
        probe(endpoint);
    });
    const bool quick = state.out.isValid() && state.out.elapsed() < m_options.quickPeriodMs;
    const int ceiling =
        quick ? std::min(m_options.quickProbeDelayMs, m_options.maxProbeDelayMs) : m_options.maxProbeDelayMs;
    state.probeDelayMs = std::min(state.probeDelayMs * 2, ceiling);
}

void EndpointMonitor::networkReachable()
{
    for (int endpoint = 0; endpoint < m_states.size(); ++endpoint) {
        State &state = m_states[endpoint];
        if (m_pool.isUp(endpoint))
            continue;
        state.probeDelayMs = m_options.firstProbeDelayMs;
        if (state.waiting) {
            state.waiting = false;
            ++state.generation;
            probe(endpoint);
        }
    }
}

void EndpointMonitor::probe(int endpoint)
{
    qCDebug(lcEndpoints) << "checking" << endpoint << "after" << m_states[endpoint].out.elapsed() << "ms out";
    m_states[endpoint].inFlight = true;
    sendCheck(endpoint, m_protocol.health(m_pool.endpoint(endpoint)),
              [this, endpoint](bool healthy) { onProbeAnswered(endpoint, healthy); });
}

void EndpointMonitor::sendCheck(int endpoint, const Exchange &exchange, const std::function<void(bool)> &done)
{
    WireRequest request = exchange.request;
    request.timeoutMs = m_options.probeTimeoutMs; // a stalled endpoint must not hold its re-check up
    WireCall *call = m_transport.send({endpoint, WireTransport::ControlLane}, request);
    // Ours until answered: a probe still out when the monitor goes must not outlive the
    // transport it came from (the owner declares the transport first, so it goes after us).
    call->setParent(this);
    connect(call, &WireCall::finished, this, [this, call, endpoint, exchange, done] {
        call->deleteLater();
        const Step<HealthOutcome> step =
            m_protocol.readHealth(m_pool.endpoint(endpoint), exchange, call->reply());
        if (const Exchange *next = step.next())
            sendCheck(endpoint, *next, done);
        else
            done(step.outcome() != nullptr);
    });
}

void EndpointMonitor::onProbeAnswered(int endpoint, bool healthy)
{
    State &state = m_states[endpoint];
    state.inFlight = false;
    qCDebug(lcEndpoints) << "check of" << endpoint << (healthy ? "answered" : "failed") << "after"
                         << state.out.elapsed() << "ms out";
    if (!healthy) {
        scheduleProbe(endpoint);
        return;
    }
    const bool wasOnline = isOnline();
    state.consecutiveFailures = 0;
    m_pool.setUp(endpoint, true);
    // "Online" before "up": whoever measures the link again as the network returns holds the
    // upload on the first; on the second the scheduler sends work to this endpoint at once.
    if (!wasOnline)
        Q_EMIT onlineChanged(true);
    Q_EMIT endpointUp(endpoint);
}

} // namespace multilane
