#include "BandwidthProbe.h"

#include "ReceiverApi.h"

#include <QNetworkAccessManager>

namespace multilane {

BandwidthProbe::BandwidthProbe(const QList<QNetworkAccessManager *> &managers,
                               const QList<Endpoint> &endpoints, const Options &options, QObject *parent)
    : QObject(parent)
    , m_managers(managers)
    , m_endpoints(endpoints)
    , m_options(options)
    , m_sampler(options.warmUpMs)
{
    if (m_options.connections <= 0)
        m_options.connections = std::min(12, 4 * int(m_endpoints.size()));
    m_sampleTimer.setInterval(20);
    connect(&m_sampleTimer, &QTimer::timeout, this, &BandwidthProbe::sample);
}

void BandwidthProbe::start()
{
    if (m_endpoints.isEmpty() || m_managers.isEmpty()) {
        Q_EMIT failed(QStringLiteral("no endpoint to probe"));
        return;
    }
    measureRtt(3);
}

void BandwidthProbe::measureRtt(int remaining)
{
    // Sequential health checks on one kept-alive connection: the first pays for the connect,
    // the best of the others is the round trip.
    auto *timer = new QElapsedTimer;
    timer->start();
    QNetworkReply *reply = m_managers.first()->get(
        ReceiverApi::request(m_endpoints.first(), ReceiverApi::healthRoute(), m_options.timeoutMs));
    connect(reply, &QNetworkReply::finished, this, [this, reply, timer, remaining] {
        const double ms = double(timer->nsecsElapsed()) / 1e6;
        delete timer;
        const ApiReply answer = ReceiverApi::read(reply);
        if (answer.error) {
            // A TLS failure's message names the endpoint and the fix already.
            Q_EMIT failed(answer.error->isTlsFailure()
                              ? answer.error->message
                              : QStringLiteral("%1 does not answer: %2")
                                    .arg(m_endpoints.first().displayName(), answer.error->message));
            return;
        }
        if (remaining < 3 && (m_bestRttMs < 0 || ms < m_bestRttMs))
            m_bestRttMs = ms;
        if (remaining > 1)
            measureRtt(remaining - 1);
        else
            startDownloads();
    });
}

void BandwidthProbe::startDownloads()
{
    m_clock.start();
    for (int i = 0; i < m_options.connections; ++i) {
        const Endpoint &endpoint = m_endpoints.at(i % m_endpoints.size());
        const QNetworkRequest request =
            ReceiverApi::request(endpoint, ReceiverApi::probeRoute(), m_options.timeoutMs,
                                 QStringLiteral("bytes=%1").arg(m_options.bytesPerStream));
        QNetworkReply *reply = m_managers.at(i % m_managers.size())->get(request);
        // Bounded, so a fast link cannot pile up gigabytes in Qt's buffers before the event loop
        // skips them; 1 MiB keeps the socket's receive window above a real link's
        // bandwidth-delay product (256 KiB here measured a third of a 24 MB/s, 40 ms link).
        reply->setReadBufferSize(1024 * 1024);
        connect(reply, &QNetworkReply::readyRead, this,
                [this, reply] { m_received += reply->skip(reply->bytesAvailable()); });
        connect(reply, &QNetworkReply::finished, this, [this, reply] {
            if (reply->isOpen())
                m_received += reply->skip(reply->bytesAvailable());
            const bool failedEarly = reply->error() != QNetworkReply::NoError &&
                                     reply->error() != QNetworkReply::OperationCanceledError && !m_done;
            const QString why = reply->errorString();
            m_downloads.removeOne(reply);
            reply->deleteLater();
            if (failedEarly) {
                m_done = true;
                m_sampleTimer.stop();
                for (QNetworkReply *other : std::as_const(m_downloads))
                    other->abort();
                Q_EMIT failed(QStringLiteral("the probe download failed: %1").arg(why));
            } else if (m_downloads.isEmpty() && !m_done) {
                finish();
            }
        });
        m_downloads.append(reply);
    }
    m_sampleTimer.start();
    QTimer::singleShot(m_options.durationMs, this, &BandwidthProbe::finish);
}

void BandwidthProbe::sample()
{
    m_sampler.addSample(m_clock.elapsed(), m_received);
}

void BandwidthProbe::finish()
{
    if (m_done)
        return;
    sample();
    m_done = true;
    m_sampleTimer.stop();
    const QList<QNetworkReply *> running = m_downloads;
    for (QNetworkReply *reply : running)
        reply->abort();
    Q_EMIT finished(
        ChunkSizer::choose(m_sampler.bytesPerSecond(), std::max(0.0, m_bestRttMs), m_options.connections));
}

} // namespace multilane
