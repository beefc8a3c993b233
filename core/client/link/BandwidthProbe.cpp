#include "BandwidthProbe.h"

#include "NoDelaySockets.h"
#include "ProbeUploadBody.h"
#include "ReceiverApi.h"
#include "ReplyEnd.h"
#include "SpeedTest.h"

#include <QNetworkAccessManager>
#include <algorithm>

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
    QElapsedTimer timer; // a copy goes with the handler, so nothing is left behind if the probe goes first
    timer.start();
    const Endpoint &endpoint = m_endpoints.at(m_rttEndpoint);
    QNetworkReply *reply = m_managers.first()->get(
        ReceiverApi::request(endpoint, ReceiverApi::healthRoute(), m_options.timeoutMs));
    connect(reply, &QNetworkReply::finished, this, [this, reply, timer, remaining, endpoint] {
        const double ms = double(timer.nsecsElapsed()) / 1e6;
        const ApiReply answer = ReceiverApi::read(reply);
        if (m_done)
            return; // cancelled meanwhile
        if (answer.error && !answer.error->isTlsFailure() && m_rttEndpoint + 1 < m_endpoints.size()) {
            // One endpoint gone (a receiver restarting) is no reason to give up: the next one.
            ++m_rttEndpoint;
            measureRtt(3);
            return;
        }
        if (answer.error) {
            // A TLS failure's message names the endpoint and the fix already.
            Q_EMIT failed(answer.error->isTlsFailure()
                              ? answer.error->message
                              : QStringLiteral("%1 does not answer: %2")
                                    .arg(endpoint.displayName(), answer.error->message));
            return;
        }
        if (remaining < 3 && (m_bestRttMs < 0 || ms < m_bestRttMs))
            m_bestRttMs = ms;
        if (remaining > 1)
            measureRtt(remaining - 1);
        else
            startStreams();
    });
}

void BandwidthProbe::startStreams()
{
    m_clock.start();
    if (m_options.direction == Direction::Upload) {
        m_uploadPattern = ProbeUploadBody::randomPattern();
        for (int i = 0; i < m_options.connections; ++i)
            sendUpload(i, FirstUploadBytes);
        m_sampleTimer.start();
        QTimer::singleShot(m_options.durationMs, this, &BandwidthProbe::closeWindow);
        return;
    }
    for (int i = 0; i < m_options.connections; ++i)
        startDownload(i);
    m_sampleTimer.start();
    QTimer::singleShot(m_options.durationMs, this, &BandwidthProbe::finish);
}

void BandwidthProbe::startDownload(int index)
{
    const Endpoint &endpoint = m_endpoints.at(index % m_endpoints.size());
    QNetworkReply *reply =
        m_managers.at(index % m_managers.size())
            ->get(ReceiverApi::request(endpoint, ReceiverApi::probeRoute(), m_options.timeoutMs,
                                       QStringLiteral("bytes=%1").arg(m_options.bytesPerStream)));
    m_streams.append(reply);
    // Bounded, so a fast link cannot pile up gigabytes in Qt's buffers before the event loop
    // skips them; 1 MiB keeps the socket's receive window above a real link's
    // bandwidth-delay product (256 KiB here measured a third of a 24 MB/s, 40 ms link).
    reply->setReadBufferSize(1024 * 1024);
    connect(reply, &QNetworkReply::readyRead, this,
            [this, reply] { m_streamBytes += reply->skip(reply->bytesAvailable()); });
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        if (reply->isOpen())
            m_streamBytes += reply->skip(reply->bytesAvailable());
        if (streamEnded(reply) && m_streams.isEmpty())
            finish();
    });
}

void BandwidthProbe::sendUpload(int index, qint64 bytes)
{
    const Endpoint &endpoint = m_endpoints.at(index % m_endpoints.size());
    QNetworkRequest request = ReceiverApi::discardRequest(endpoint, m_options.timeoutMs);
    request.setHeader(QNetworkRequest::ContentLengthHeader, bytes);
    auto *body = new ProbeUploadBody(bytes, m_uploadPattern);
    body->open(QIODevice::ReadOnly);
    QNetworkReply *reply = m_managers.at(index % m_managers.size())->put(request, body);
    body->setParent(reply);
    NoDelaySockets::watch(reply);
    m_streams.append(reply);
    // Bytes handed to the socket: only the fallback below, as they count every buffer on the way.
    connect(reply, &QNetworkReply::uploadProgress, this,
            [this, counted = qint64(0)](qint64 sent, qint64) mutable {
                if (!m_windowClosed && sent > counted)
                    m_streamBytes += sent - counted;
                counted = sent;
            });
    const qint64 startMs = m_clock.elapsed();
    connect(reply, &QNetworkReply::finished, this, [this, reply, index, bytes, startMs] {
        if (!streamEnded(reply))
            return;
        const qint64 endMs = m_clock.elapsed();
        m_spans.append({startMs, endMs, bytes});
        m_awaited.removeOne(reply);
        if (m_windowClosed && m_awaited.isEmpty()) {
            finish();
            return;
        }
        // The next request on this stream takes about UploadRequestMs at the rate this one had:
        // long enough that the round trip between requests costs little, short enough that the
        // requests overlapping the window's end finish soon after it.
        const qint64 elapsed = std::max<qint64>(1, endMs - startMs);
        sendUpload(index, std::clamp(bytes * UploadRequestMs / elapsed, FirstUploadBytes, MaxUploadBytes));
    });
}

bool BandwidthProbe::streamEnded(QNetworkReply *reply)
{
    m_streams.removeOne(reply);
    ReplyEnd::release(reply);
    if (m_done)
        return false; // aborted at the end
    if (reply->error() == QNetworkReply::NoError)
        return true;
    const QString why = reply->errorString();
    stop();
    Q_EMIT failed(QStringLiteral("the probe %1 failed: %2")
                      .arg(m_options.direction == Direction::Upload ? QStringLiteral("upload")
                                                                    : QStringLiteral("download"),
                           why));
    return false;
}

void BandwidthProbe::closeWindow()
{
    if (m_done)
        return;
    // The requests in flight carry bytes of the window: they finish (new ones keep the number of
    // connections the same, so their rate stays what it was), bounded by AwaitMs.
    m_windowClosed = true;
    m_awaited = m_streams;
    if (m_awaited.isEmpty()) {
        finish();
        return;
    }
    QTimer::singleShot(AwaitMs, this, &BandwidthProbe::finish);
}

void BandwidthProbe::sample()
{
    if (!m_windowClosed)
        m_sampler.addSample(m_clock.elapsed(), m_streamBytes);
}

void BandwidthProbe::finish()
{
    if (m_done)
        return;
    double bytesPerSecond = 0;
    if (m_options.direction == Direction::Upload) {
        // Each request's bytes spread over its lifetime, from sending to the receiver's answer:
        // bytes handed to the socket would count every buffer on the way (12 connections' send
        // buffers and linksim's took 2 s to fill at 24 MB/s: 36-46 MB/s measured).
        bytesPerSecond = SpeedTest::rateOver(m_spans, m_options.warmUpMs, m_options.durationMs);
        // On an uplink too slow for even a first request per stream to be answered in time (16 KiB
        // in 4 s: under ~50 KB/s for 12 streams), the bytes handed to the sockets are all there is.
        // They err high by what the buffers took in, which at such rates is little.
        if (bytesPerSecond <= 0)
            bytesPerSecond = m_sampler.bytesPerSecond();
    } else {
        sample();
        bytesPerSecond = m_sampler.bytesPerSecond();
    }
    stop();
    Q_EMIT finished(ChunkSizer::choose(bytesPerSecond, std::max(0.0, m_bestRttMs), m_options.connections));
}

void BandwidthProbe::cancel()
{
    if (!m_done)
        stop();
}

void BandwidthProbe::stop()
{
    m_done = true;
    m_sampleTimer.stop();
    const QList<QNetworkReply *> running = m_streams;
    for (QNetworkReply *reply : running)
        ReplyEnd::abortIfRunning(*reply);
}

} // namespace multilane
