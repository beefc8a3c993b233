#pragma once

#include "Endpoint.h"

#include <QList>
#include <QObject>
#include <QStringList>
#include <memory>

namespace multilane {

class BandwidthProbe;
class HealthCheck;
class NetworkManagers;

// The Endpoints dialog's Test: checks every endpoint at once (is it a multilane receiver, does it
// take the token), tells an http:// endpoint that only speaks https so, then measures the upload
// rate to each healthy one in turn for a second. Each endpoint's result is one line of words.
class EndpointTester : public QObject {
    Q_OBJECT
public:
    explicit EndpointTester(QObject *parent = nullptr);
    ~EndpointTester() override;

    void start(const QList<Endpoint> &endpoints);
    bool isRunning() const { return m_running; }
    const QStringList &results() const { return m_results; }

Q_SIGNALS:
    void resultChanged(int index);
    void finished();

private:
    void onHealthChecked(const QList<std::optional<QString>> &problems);
    // http:// endpoints that failed: does the same address answer over https?
    void checkHttps(const QList<int> &failedHttp);
    void probeNext();
    void setResult(int index, const QString &text);

    QList<Endpoint> m_endpoints;
    QStringList m_results;
    QList<double> m_roundTripMs;
    QList<int> m_toProbe;
    std::unique_ptr<HealthCheck> m_health;
    std::unique_ptr<HealthCheck> m_httpsCheck;
    std::unique_ptr<NetworkManagers> m_probeManagers;
    std::unique_ptr<BandwidthProbe> m_probe;
    bool m_running = false;
};

} // namespace multilane
