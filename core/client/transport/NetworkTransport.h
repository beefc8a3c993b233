#pragma once

#include "DeliveryMeter.h"
#include "WireTransport.h"

#include <QList>
#include <memory>
#include <vector>

class QNetworkAccessManager;
class QNetworkReply;
class QNetworkRequest;

namespace multilane {

// The real transport: one QNetworkAccessManager per lane of each endpoint and one for control
// requests, each watched for TLS pins (TlsTrust), every connection without Nagle (NoDelaySockets),
// file bodies streamed by FileRangeDevice.
class NetworkTransport final : public WireTransport {
public:
    // A request with no bytes moving for transferTimeoutMs is aborted (and reported as no answer).
    // Each endpoint of the pool gets its lanes; the control lane serves every endpoint.
    NetworkTransport(const EndpointPool &pool, int transferTimeoutMs);
    // Control requests only (health checks before a pool exists).
    NetworkTransport(const QList<Endpoint> &endpoints, int transferTimeoutMs);
    ~NetworkTransport() override;

    WireCall *send(const EndpointLease &lease, const WireRequest &request) override;
    void closeIdleConnections() override;
    Delivery delivery() override;

    static QNetworkRequest toNetworkRequest(const Endpoint &endpoint, const WireRequest &request,
                                            int transferTimeoutMs);
    // A finished reply as a value (TLS failures in words).
    static WireReply readReply(QNetworkReply &reply);

private:
    QNetworkAccessManager &managerFor(const EndpointLease &lease);

    QList<Endpoint> m_endpoints;
    QList<quint16> m_ports; // the endpoints': the meter counts only connections to them
    int m_transferTimeoutMs;
    std::vector<std::vector<std::unique_ptr<QNetworkAccessManager>>> m_lanes; // [endpoint][lane]
    std::unique_ptr<QNetworkAccessManager> m_control;
    DeliveryMeter m_meter;
};

} // namespace multilane
