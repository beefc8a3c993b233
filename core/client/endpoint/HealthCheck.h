#pragma once

#include "Endpoint.h"
#include "ProtocolOutcome.h"

#include <QList>
#include <QObject>
#include <QStringList>
#include <memory>
#include <optional>

namespace multilane {

class UploadProtocol;
class WireCall;
class WireTransport;

// Asks every endpoint at once whether it is there and takes our credentials (the protocol's
// health exchange), and reports, per endpoint, nothing (healthy) or what is wrong in words a
// user can act on, with what each healthy one said of itself.
class HealthCheck : public QObject {
    Q_OBJECT
public:
    HealthCheck(std::shared_ptr<const UploadProtocol> protocol, QObject *parent = nullptr);
    ~HealthCheck() override;

    void check(const QList<Endpoint> &endpoints, int timeoutMs = 10000);
    // After finished(): what each healthy endpoint said (connections it allows per client).
    const QList<HealthOutcome> &outcomes() const { return m_outcomes; }
    // After finished(): the endpoint gave no answer at all (refused, timed out), which may pass;
    // any other problem (wrong service, untrusted certificate, refused credentials) will not.
    bool isUnreachable(qsizetype index) const { return m_unreachable.value(index); }
    // After finished(): the failure's code, when the protocol gave one ("tls_untrusted", …).
    QString failureCode(qsizetype index) const { return m_codes.value(index); }
    // Destination checks are out (destinationChecked() will come).
    bool isCheckingDestination() const { return m_destinationChecksOut > 0; }

Q_SIGNALS:
    // The endpoint answered its health check (outcomes().at(index) holds what it said, and a
    // first round-trip figure); its credentials are checked next.
    void endpointHealthy(int index);
    // One of the protocol's destination checks (asked once, of the first endpoint, beside the
    // health checks) found what spares each file a question of its own.
    void destinationFound(multilane::DestinationFinding finding);
    // Every destination check has answered, or failed.
    void destinationChecked();
    void finished(const QList<std::optional<QString>> &problems);

private:
    void send(qsizetype index, const Exchange &exchange);
    WireCall *sendOnControlLane(qsizetype index, const WireRequest &request);
    void checkCredentials(qsizetype index);
    void checkDestination();
    void settle(); // one endpoint's verdict is in

    std::shared_ptr<const UploadProtocol> m_protocol;
    std::unique_ptr<WireTransport> m_transport;
    QList<Endpoint> m_endpoints;
    QList<std::optional<QString>> m_problems;
    QList<HealthOutcome> m_outcomes;
    QList<bool> m_unreachable;
    QStringList m_codes;
    int m_timeoutMs = 0;
    int m_waiting = 0;
    int m_destinationChecksOut = 0;
};

} // namespace multilane
