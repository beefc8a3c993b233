#pragma once

#include "ConcurrencyTuner.h"
#include "Endpoint.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QTimer>

class QNetworkAccessManager;
class QNetworkReply;

namespace multilane {

// `multilane speedtest`: uploads throw-away data (PUT /v1/discard, nothing is stored) first
// over one connection, as a plain uploader would, then over many connections across the
// endpoints with the connection tuner at work — the user's own proof of what Multilane gains.
class SpeedTest : public QObject {
    Q_OBJECT
public:
    struct Result {
        double singleBytesPerSecond = 0;
        double multiBytesPerSecond = 0;
        int connections = 0; // where the tuner ended
    };
    struct Options {
        int phaseMs = 4000;
        qint64 requestBytes = 2 * 1024 * 1024;
        int maxConnections = 0; // 0: 6 per endpoint
    };

    SpeedTest(const QList<QNetworkAccessManager *> &managers, const QList<Endpoint> &endpoints,
              const Options &options, QObject *parent = nullptr);

    void start();

    // How long the requests in flight at a stage's end may take to finish before the phase goes
    // on without them.
    static constexpr int AwaitMs = 3000;
    static constexpr int WarmUpMs = 1000;       // one connection: connect and slow start
    static constexpr int TuningWarmUpMs = 2000; // many: also the tuner's first steps

    // One acknowledged request: its bytes, from when it was sent to when it was acknowledged.
    struct Span {
        qint64 startMs = 0;
        qint64 endMs = 0;
        qint64 bytes = 0;
    };
    // Goodput over [fromMs, toMs], each request's bytes spread evenly over its lifetime: counting
    // whole requests at their acknowledgement over-counted by up to a request per connection
    // (connections started together finish together; 28 MB/s measured on a 24 MB/s link).
    static double rateOver(const QList<Span> &spans, qint64 fromMs, qint64 toMs);

Q_SIGNALS:
    void phaseStarted(const QString &what);
    void finished(const multilane::SpeedTest::Result &result);
    void failed(const QString &why);

private:
    // A phase: the tuner looks for the level (warm-up), the level is fixed and the requests sent
    // before that finish (settling), the window is measured, and the requests that overlap it
    // finish while new ones keep the level (draining). Requests' rates are even only while the
    // number in flight stays the same, which spreading their bytes over their lifetime needs.
    enum class Stage { Idle, WarmUp, Settling, Measuring, Draining };

    void startPhase(bool multi);
    void fill();
    void send(int stream);
    void settle();
    void openWindow();
    void endPhase();
    void concludePhase();
    void awaitInFlight(void (SpeedTest::*then)());
    void stopAwaiting();
    void requestEnded(QNetworkReply *reply);

    QList<QNetworkAccessManager *> m_managers;
    QList<Endpoint> m_endpoints;
    Options m_options;
    QByteArray m_payload;
    QList<QNetworkReply *> m_replies;
    bool m_multi = false;
    Stage m_stage = Stage::Idle;
    int m_nextStream = 0;
    int m_level = 1;
    qint64 m_sent = 0;
    qint64 m_windowStartMs = 0;
    qint64 m_windowEndMs = 0;
    QList<Span> m_spans;
    QList<QNetworkReply *> m_awaited; // the requests the next stage waits for
    void (SpeedTest::*m_afterAwaited)() = nullptr;
    QTimer m_awaitDeadline;
    QElapsedTimer m_clock;
    QTimer m_tick;
    ConcurrencyTuner m_tuner;
    Result m_result;
};

} // namespace multilane
