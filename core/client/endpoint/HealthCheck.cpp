#include "HealthCheck.h"

#include "WireTransports.h"

#include "UploadProtocol.h"
#include <QElapsedTimer>
#include <memory>

namespace multilane {

HealthCheck::HealthCheck(std::shared_ptr<const UploadProtocol> protocol, QObject *parent)
    : QObject(parent)
    , m_protocol(std::move(protocol))
{}

HealthCheck::~HealthCheck()
{
    // Calls still out are ours and must go before the transport they came from, which as a
    // member goes before QObject would delete them as children.
    qDeleteAll(findChildren<WireCall *>(Qt::FindDirectChildrenOnly));
}

WireCall *HealthCheck::sendOnControlLane(qsizetype index, const WireRequest &request)
{
    WireCall *call = m_transport->send({int(index), WireTransport::ControlLane}, request);
    call->setParent(this);
    return call;
}

void HealthCheck::check(const QList<Endpoint> &endpoints, int timeoutMs)
{
    m_endpoints = endpoints;
    m_timeoutMs = timeoutMs;
    m_transport = WireTransports::make(endpoints, timeoutMs);
    m_problems = QList<std::optional<QString>>(endpoints.size());
    m_outcomes = QList<HealthOutcome>(endpoints.size());
    m_unreachable = QList<bool>(endpoints.size(), false);
    m_codes = QStringList(endpoints.size());
    m_waiting = int(endpoints.size());
    if (m_waiting == 0) {
        Q_EMIT finished(m_problems);
        return;
    }
    for (qsizetype i = 0; i < endpoints.size(); ++i)
        send(i, m_protocol->health(endpoints.at(i)));
    // Beside the health checks, not after them: the run's first files are written about a round
    // trip later, so the listing cannot see this run's own objects and take them for another's.
    checkDestination();
}

void HealthCheck::send(qsizetype index, const Exchange &exchange)
{
    WireRequest request = exchange.request;
    request.timeoutMs = m_timeoutMs;
    auto clock = std::make_shared<QElapsedTimer>();
    clock->start();
    WireCall *call = sendOnControlLane(index, request);
    connect(call, &WireCall::finished, this, [this, call, index, exchange, clock] {
        call->deleteLater();
        const Step<HealthOutcome> step =
            m_protocol->readHealth(m_endpoints.at(index), exchange, call->reply());
        if (const Exchange *next = step.next()) {
            send(index, *next);
        } else if (const ProtocolFailure *failure = step.failure()) {
            m_problems[index] = failure->message;
            m_codes[index] = failure->code;
            m_unreachable[index] = failure->kind == FailureKind::Retry && !failure->answered();
            settle();
        } else {
            m_outcomes[index] = *step.outcome();
            // A new connection and one request: about two round trips (more over TLS), until
            // the credentials check on the kept-alive connection says better.
            m_outcomes[index].rttMs = double(clock->nsecsElapsed()) / 2e6;
            Q_EMIT endpointHealthy(int(index));
            checkCredentials(index);
        }
    });
}

void HealthCheck::checkCredentials(qsizetype index)
{
    WireRequest request = m_protocol->credentialsCheck(m_endpoints.at(index)).request;
    request.timeoutMs = m_timeoutMs;
    // The health check opened the connection: this one's time is about one round trip.
    auto clock = std::make_shared<QElapsedTimer>();
    clock->start();
    WireCall *call = sendOnControlLane(index, request);
    connect(call, &WireCall::finished, this, [this, call, index, clock] {
        call->deleteLater();
        m_outcomes[index].rttMs = double(clock->nsecsElapsed()) / 1e6;
        if (const auto refused = m_protocol->readCredentialsCheck(m_endpoints.at(index), call->reply()))
            m_problems[index] = refused->message;
        settle();
    });
}

void HealthCheck::checkDestination()
{
    // One endpoint is enough: the gateways of a store share its buckets.
    constexpr qsizetype index = 0;
    const QList<Exchange> checks = m_protocol->destinationChecks(m_endpoints.at(index));
    m_destinationChecksOut = int(checks.size());
    for (const Exchange &exchange : checks) {
        WireRequest request = exchange.request;
        request.timeoutMs = m_timeoutMs;
        // Not part of the verdict: without an answer (an endpoint that is down), each file looks.
        WireCall *call = sendOnControlLane(index, request);
        connect(call, &WireCall::finished, this, [this, call, exchange] {
            call->deleteLater();
            const DestinationFinding finding =
                m_protocol->readDestinationCheck(m_endpoints.at(index), exchange, call->reply());
            if (finding != DestinationFinding::Nothing)
                Q_EMIT destinationFound(finding);
            if (--m_destinationChecksOut == 0)
                Q_EMIT destinationChecked();
        });
    }
}

void HealthCheck::settle()
{
    if (--m_waiting == 0)
        Q_EMIT finished(m_problems);
}

} // namespace multilane
