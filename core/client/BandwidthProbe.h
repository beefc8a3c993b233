#pragma once

#include "Endpoint.h"
#include "LinkEstimate.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QTimer>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;

namespace multilane {

// Measures the link: the best round trip of a few tiny requests, then the rate of several
// probe downloads at once (GET /v1/probe, spread over the endpoints) for a bounded time, with
// the warm-up left out. Ends with a LinkEstimate (chunk size included) or an error.
class BandwidthProbe : public QObject {
    Q_OBJECT
public:
    struct Options {
        int connections = 0;   // 0: 4 per endpoint, at most 12
        int durationMs = 2000; // how long the downloads run (`multilane probe`)
        int warmUpMs = 300;
        qint64 bytesPerStream = 1024LL * 1024 * 1024;
        int timeoutMs = 10000;
    };

    // A measurement taken in passing — before or during an upload, the window's endpoint Test —
    // runs its downloads this long: enough for the estimate to land within a few percent on the
    // linksim links, short enough not to hold up what the user asked for.
    static constexpr int InPassingMs = 1000;

    BandwidthProbe(const QList<QNetworkAccessManager *> &managers, const QList<Endpoint> &endpoints,
                   const Options &options, QObject *parent = nullptr);

    void start();

Q_SIGNALS:
    void finished(const multilane::LinkEstimate &estimate);
    void failed(const QString &why);

private:
    void measureRtt(int remaining);
    void startDownloads();
    void sample();
    void finish();

    QList<QNetworkAccessManager *> m_managers; // one per stream: Qt's 6-per-host cap must not bite
    QList<Endpoint> m_endpoints;
    Options m_options;
    QList<QNetworkReply *> m_downloads;
    QElapsedTimer m_clock;
    QTimer m_sampleTimer;
    ThroughputSampler m_sampler;
    qint64 m_received = 0;
    double m_bestRttMs = -1;
    bool m_done = false;
};

} // namespace multilane
