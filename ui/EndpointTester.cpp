#include "EndpointTester.h"

#include "BandwidthProbe.h"
#include "HealthCheck.h"
#include "NetworkManagers.h"
#include "ReceiverProtocol.h"
#include "Units.h"

namespace multilane {

static QString roundTrip(double ms)
{
    return EndpointTester::tr("round trip %1 ms").arg(ms, 0, 'f', ms < 10 ? 1 : 0);
}

EndpointTester::EndpointTester(QObject *parent)
    : QObject(parent)
{}

EndpointTester::~EndpointTester() = default;

void EndpointTester::setResult(int index, const QString &text)
{
    m_results[index] = text;
    Q_EMIT resultChanged(index);
}

void EndpointTester::start(const QList<Endpoint> &endpoints)
{
    m_endpoints = endpoints;
    m_results = QStringList(endpoints.size());
    m_roundTripMs = QList<double>(endpoints.size(), 0);
    m_toProbe.clear();
    m_running = true;
    for (int i = 0; i < int(endpoints.size()); ++i)
        setResult(i, tr("testing…"));
    m_health = std::make_unique<HealthCheck>(std::make_shared<ReceiverProtocol>());
    connect(m_health.get(), &HealthCheck::finished, this, &EndpointTester::onHealthChecked);
    m_health->check(endpoints, 5000);
}

void EndpointTester::onHealthChecked(const QList<std::optional<QString>> &problems)
{
    QList<int> failedHttp;
    for (int i = 0; i < int(problems.size()) && i < m_endpoints.size(); ++i) {
        if (problems.at(i)) {
            setResult(i, *problems.at(i));
            if (m_endpoints.at(i).url.scheme() == QLatin1String("http"))
                failedHttp.append(i);
            continue;
        }
        m_roundTripMs[i] = m_health->outcomes().at(i).rttMs;
        setResult(i, tr("OK · %1 · measuring upload…").arg(roundTrip(m_roundTripMs.at(i))));
        m_toProbe.append(i);
    }
    if (failedHttp.isEmpty())
        probeNext();
    else
        checkHttps(failedHttp);
}

void EndpointTester::checkHttps(const QList<int> &failedHttp)
{
    QList<Endpoint> asHttps;
    for (int i : failedHttp) {
        Endpoint endpoint = m_endpoints.at(i);
        endpoint.url.setScheme(QStringLiteral("https"));
        asHttps.append(endpoint);
    }
    m_httpsCheck = std::make_unique<HealthCheck>(std::make_shared<ReceiverProtocol>());
    connect(m_httpsCheck.get(), &HealthCheck::finished, this,
            [this, failedHttp, asHttps](const QList<std::optional<QString>> &problems) {
                for (int k = 0; k < int(failedHttp.size()) && k < problems.size(); ++k) {
                    // A TLS receiver: it answered, or presented a certificate not trusted yet.
                    const QString code = m_httpsCheck->failureCode(k);
                    if (problems.at(k) && code != QLatin1String("tls_untrusted") &&
                        code != QLatin1String("tls_pin_mismatch"))
                        continue;
                    setResult(failedHttp.at(k),
                              tr("speaks https, not http: change the URL to %1")
                                      .arg(asHttps.at(k).url.toString(QUrl::StripTrailingSlash)) +
                                  (problems.at(k) ? tr(" (then: %1)").arg(*problems.at(k)) : QString()));
                }
                probeNext();
            });
    m_httpsCheck->check(asHttps, 5000);
}

void EndpointTester::probeNext()
{
    if (m_toProbe.isEmpty()) {
        m_running = false;
        Q_EMIT finished();
        return;
    }
    const int index = m_toProbe.takeFirst();
    if (!m_probeManagers)
        m_probeManagers = std::make_unique<NetworkManagers>(4);
    BandwidthProbe::Options options;
    options.connections = 4;
    options.durationMs = BandwidthProbe::InPassingMs;
    m_probe = std::make_unique<BandwidthProbe>(m_probeManagers->list(),
                                               QList<Endpoint>{m_endpoints.at(index)}, options);
    // One line: that it answers, how fast an upload to it goes, and one round trip (the probe's
    // best tiny request when it measured one, else the check's).
    connect(m_probe.get(), &BandwidthProbe::finished, this, [this, index](const LinkEstimate &estimate) {
        const double rtt = estimate.rttMs > 0 ? estimate.rttMs : m_roundTripMs.at(index);
        setResult(index, tr("OK · %1 up · %2").arg(Units::rate(estimate.bytesPerSecond), roundTrip(rtt)));
        m_probe.release()->deleteLater(); // not inside its own signal
        probeNext();
    });
    connect(m_probe.get(), &BandwidthProbe::failed, this, [this, index](const QString &why) {
        setResult(index,
                  tr("OK · %1 · upload not measured: %2").arg(roundTrip(m_roundTripMs.at(index)), why));
        m_probe.release()->deleteLater();
        probeNext();
    });
    m_probe->start();
}

} // namespace multilane
