#include "SpeedTest.h"

#include "NoDelaySockets.h"
#include "ProbeUploadBody.h"
#include "ReceiverApi.h"
#include "ReplyEnd.h"

#include <QNetworkAccessManager>
#include <algorithm>
#include <memory>
#include <utility>

namespace multilane {

SpeedTest::SpeedTest(const QList<QNetworkAccessManager *> &managers, const QList<Endpoint> &endpoints,
                     const Options &options, QObject *parent)
    : QObject(parent)
    , m_managers(managers)
    , m_endpoints(endpoints)
    , m_options(options)
    // Like an upload's tuner on a LAN: 4 connections per endpoint to start with (4 in all spent
    // most of the warm-up ramping up on link (a)).
    , m_tuner(ConcurrencyTuner::Options{4 * int(std::max<qsizetype>(1, endpoints.size())), 1,
                                        options.maxConnections > 0 ? options.maxConnections
                                                                   : 6 * int(endpoints.size())})
{
    // Random bytes, so nothing on the way can compress them into a flattering number.
    m_payload = ProbeUploadBody::randomPattern(int(m_options.requestBytes));
    m_awaitDeadline.setSingleShot(true);
    m_awaitDeadline.setInterval(AwaitMs);
    connect(&m_awaitDeadline, &QTimer::timeout, this, &SpeedTest::stopAwaiting);
    m_tick.setInterval(250);
    connect(&m_tick, &QTimer::timeout, this, [this] {
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
    m_stage = Stage::WarmUp;
    m_level = multi ? m_tuner.level() : 1;
    m_sent = 0;
    m_spans.clear();
    Q_EMIT phaseStarted(multi ? QStringLiteral("many connections, tuned") : QStringLiteral("one connection"));
    m_clock.start();
    if (multi)
        m_tick.start();
    QTimer::singleShot(multi ? TuningWarmUpMs : WarmUpMs, this, &SpeedTest::settle);
    fill();
}

void SpeedTest::settle()
{
    if (m_stage != Stage::WarmUp)
        return;
    // The level is what it is now; the requests sent before may have run at another level.
    m_tick.stop();
    m_stage = Stage::Settling;
    awaitInFlight(&SpeedTest::openWindow);
}

void SpeedTest::openWindow()
{
    m_stage = Stage::Measuring;
    m_windowStartMs = m_clock.elapsed();
    m_windowEndMs = m_windowStartMs + m_options.phaseMs;
    QTimer::singleShot(m_options.phaseMs, this, &SpeedTest::endPhase);
}

void SpeedTest::endPhase()
{
    if (m_stage != Stage::Measuring)
        return;
    // The requests in flight carry bytes of the window: they finish with the level kept full, so
    // their rates stay what they were inside it.
    m_stage = Stage::Draining;
    awaitInFlight(&SpeedTest::concludePhase);
}

void SpeedTest::awaitInFlight(void (SpeedTest::*then)())
{
    m_awaited = m_replies;
    if (m_awaited.isEmpty()) {
        (this->*then)();
        return;
    }
    m_afterAwaited = then;
    m_awaitDeadline.start();
}

void SpeedTest::fill()
{
    while (m_stage != Stage::Idle && int(m_replies.size()) < m_level)
        send(m_nextStream++);
}

void SpeedTest::send(int stream)
{
    const Endpoint &endpoint = m_endpoints.at(stream % m_endpoints.size());
    QNetworkReply *reply = m_managers.at(stream % m_managers.size())
                               ->put(ReceiverApi::discardRequest(endpoint, 30000), m_payload);
    NoDelaySockets::watch(reply);
    const qint64 startMs = m_clock.elapsed();
    m_replies.append(reply);
    // The tuner compares short windows: count bytes as they leave, not a request at a time.
    // The count lives with the connection (freed with the reply or with this object, whichever
    // goes first: a reply aborted at the end outlives the event loop that would delete it).
    auto sentSoFar = std::make_shared<qint64>(0);
    connect(reply, &QNetworkReply::uploadProgress, this, [this, sentSoFar](qint64 sent, qint64) {
        if (m_stage != Stage::Idle && sent > *sentSoFar)
            m_sent += sent - *sentSoFar;
        *sentSoFar = sent;
    });
    connect(reply, &QNetworkReply::finished, this, [this, reply, startMs] {
        m_replies.removeOne(reply);
        if (m_stage == Stage::Idle) {
            ReplyEnd::release(reply); // aborted at the end of a phase
            return;
        }
        const ApiReply answer = ReceiverApi::read(reply); // and lets it go
        if (answer.error) {
            m_stage = Stage::Idle;
            m_tick.stop();
            m_awaitDeadline.stop();
            const QList<QNetworkReply *> others = m_replies;
            for (QNetworkReply *other : others)
                ReplyEnd::abortIfRunning(*other);
            Q_EMIT failed(answer.error->message);
            return;
        }
        m_spans.append({startMs, m_clock.elapsed(), m_payload.size()});
        requestEnded(reply);
    });
}

void SpeedTest::requestEnded(QNetworkReply *reply)
{
    if (m_afterAwaited && m_awaited.removeOne(reply) && m_awaited.isEmpty())
        stopAwaiting();
    fill();
}

void SpeedTest::stopAwaiting()
{
    // The awaited requests are done, or AwaitMs is over: go on to the next stage.
    m_awaitDeadline.stop();
    m_awaited.clear();
    if (auto then = std::exchange(m_afterAwaited, nullptr))
        (this->*then)();
}

double SpeedTest::rateOver(const QList<Span> &spans, qint64 fromMs, qint64 toMs)
{
    if (toMs <= fromMs)
        return 0;
    double bytes = 0;
    for (const Span &span : spans) {
        const qint64 overlap = std::min(span.endMs, toMs) - std::max(span.startMs, fromMs);
        if (overlap <= 0)
            continue;
        bytes += span.endMs > span.startMs
                     ? double(span.bytes) * double(overlap) / double(span.endMs - span.startMs)
                     : double(span.bytes);
    }
    return bytes * 1000.0 / double(toMs - fromMs);
}

void SpeedTest::concludePhase()
{
    // Requests slower than AwaitMs are left out (the figure errs low, never high); the ones
    // still going would only steal bandwidth from the next phase.
    m_stage = Stage::Idle;
    const QList<QNetworkReply *> unfinished = m_replies;
    for (QNetworkReply *reply : unfinished)
        ReplyEnd::abortIfRunning(*reply);
    const double rate = rateOver(m_spans, m_windowStartMs, m_windowEndMs);
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
