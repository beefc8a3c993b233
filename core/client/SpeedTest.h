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

Q_SIGNALS:
    void phaseStarted(const QString &what);
    void finished(const multilane::SpeedTest::Result &result);
    void failed(const QString &why);

private:
    void startPhase(bool multi);
    void fill();
    void send(int stream);
    void endPhase();

    QList<QNetworkAccessManager *> m_managers;
    QList<Endpoint> m_endpoints;
    Options m_options;
    QByteArray m_payload;
    QList<QNetworkReply *> m_replies;
    bool m_multi = false;
    bool m_running = false;
    int m_inFlight = 0;
    int m_nextStream = 0;
    int m_level = 1;
    qint64 m_acknowledged = 0;
    qint64 m_sent = 0;
    qint64 m_windowStartBytes = 0;
    qint64 m_windowStartMs = 0;
    QElapsedTimer m_clock;
    QTimer m_tick;
    ConcurrencyTuner m_tuner;
    Result m_result;
};

} // namespace multilane
