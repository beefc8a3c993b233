#include "SpeedTest.h"

#include "ReceiverApi.h"

#include <QNetworkAccessManager>
#include <QRandomGenerator>

namespace multilane {

SpeedTest::SpeedTest(const QList<QNetworkAccessManager *> &managers, const QList<Endpoint> &endpoints,
                     const Options &options, QObject *parent)
    : QObject(parent)
    , m_managers(managers)
    , m_endpoints(endpoints)
    , m_options(options)
    , m_tuner(ConcurrencyTuner::Options{
          4, 1, options.maxConnections > 0 ? options.maxConnections : 6 * int(endpoints.size())})
{
    // Random bytes, so nothing on the way can compress them into a flattering number.
    m_payload.resize(m_options.requestBytes);
    QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(m_payload.data()),
                                          m_payload.size() / int(sizeof(quint32)));
    m_tick.setInterval(250);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        if (!m_multi)
            return;
        m_level = m_tuner.update({m_clock.elapsed(), m_sent, 0});
        fill();
    });
}

void SpeedTest::start()
{
    if (m_endpoints.isEmpty() || m_managers.isEmpty()) {
        Q_EMIT failed(QStringLiteral("no endpoint to test"));
        return;
    }
    startPhase(false);
}

void SpeedTest::startPhase(bool multi)
{
    m_multi = multi;
    m_running = true;
    m_level = multi ? m_tuner.level() : 1;
    m_acknowledged = 0;
    m_sent = 0;
    // The first second is warm-up (connections, slow start, the tuner's first steps).
    m_windowStartMs = 1000;
    m_windowStartBytes = -1;
    Q_EMIT phaseStarted(multi ? QStringLiteral("many connections, tuned") : QStringLiteral("one connection"));
    m_clock.start();
    m_tick.start();
    QTimer::singleShot(1000, this, [this] { m_windowStartBytes = m_acknowledged; });
    QTimer::singleShot(m_options.phaseMs + 1000, this, &SpeedTest::endPhase);
    fill();
}

void SpeedTest::fill()
{
    while (m_running && m_inFlight < m_level)
        send(m_nextStream++);
}

void SpeedTest::send(int stream)
{
    const Endpoint &endpoint = m_endpoints.at(stream % m_endpoints.size());
    QNetworkRequest request = ReceiverApi::request(endpoint, QStringLiteral("/v1/discard"), 30000);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/octet-stream"));
    QNetworkReply *reply = m_managers.at(stream % m_managers.size())->put(request, m_payload);
    ++m_inFlight;
    m_replies.append(reply);
    // The tuner compares short windows: count bytes as they leave, not a request at a time.
    auto *sentSoFar = new qint64(0);
    connect(reply, &QObject::destroyed, this, [sentSoFar] { delete sentSoFar; });
    connect(reply, &QNetworkReply::uploadProgress, this, [this, sentSoFar](qint64 sent, qint64) {
        if (m_running && sent > *sentSoFar)
            m_sent += sent - *sentSoFar;
        *sentSoFar = sent;
    });
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        --m_inFlight;
        m_replies.removeOne(reply);
        if (!m_running) {
            reply->deleteLater();
            return;
        }
        const ApiReply answer = ReceiverApi::read(reply);
        if (answer.error) {
            m_running = false;
            m_tick.stop();
            Q_EMIT failed(answer.error->message);
            return;
        }
        m_acknowledged += m_payload.size();
        fill();
    });
}

void SpeedTest::endPhase()
{
    if (!m_running)
        return;
    m_running = false;
    m_tick.stop();
    // What is still in flight would only steal bandwidth from the next phase.
    const QList<QNetworkReply *> unfinished = m_replies;
    for (QNetworkReply *reply : unfinished)
        reply->abort();
    const double seconds = double(m_clock.elapsed() - m_windowStartMs) / 1000.0;
    const double rate =
        seconds > 0 ? double(m_acknowledged - std::max<qint64>(0, m_windowStartBytes)) / seconds : 0;
    if (!m_multi) {
        m_result.singleBytesPerSecond = rate;
        startPhase(true);
        return;
    }
    m_result.multiBytesPerSecond = rate;
    m_result.connections = m_level;
    Q_EMIT finished(m_result);
}

} // namespace multilane
