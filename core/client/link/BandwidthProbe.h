#pragma once

#include "Endpoint.h"
#include "LinkEstimate.h"
#include "SpeedTest.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QTimer>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;

namespace multilane {

// Measures the link: the best round trip of a few tiny requests, then the rate of several
// streams at once, spread over the endpoints, for a bounded time with the warm-up left out.
// Streams upload (PUT /v1/discard) by default: that is the direction an upload uses, and most
// links are asymmetric (a home line's downlink is often ten times its uplink; linksim's total cap
// is upload-only, so the download probe measured 288 MB/s on its 24 MB/s link (b)). Download
// streams (GET /v1/probe) measure the other direction, for `multilane probe` to show both.
// Ends with a LinkEstimate (chunk size included) or an error.
class BandwidthProbe : public QObject {
    Q_OBJECT
public:
    enum class Direction { Upload, Download };
    struct Options {
        Direction direction = Direction::Upload;
        int connections = 0;   // 0: 4 per endpoint, at most 12
        int durationMs = 2000; // how long the streams run (`multilane probe`)
        int warmUpMs = 300;
        qint64 bytesPerStream = 1024LL * 1024 * 1024; // download: asked for, aborted at the end
        int timeoutMs = 10000;
    };

    // A measurement taken in passing — before or during an upload, the window's endpoint Test —
    // runs its streams this long: enough for the estimate to land within a few percent on the
    // linksim links, short enough not to hold up what the user asked for.
    static constexpr int InPassingMs = 1000;

    BandwidthProbe(const QList<QNetworkAccessManager *> &managers, const QList<Endpoint> &endpoints,
                   const Options &options, QObject *parent = nullptr);

    void start();
    // Stops now: every stream aborted, no signal. For a measurement that has lost its meaning (an
    // upload began on the same link: the probe would measure what the upload leaves it).
    void cancel();

Q_SIGNALS:
    void finished(const multilane::LinkEstimate &estimate);
    void failed(const QString &why);

private:
    void measureRtt(int remaining);
    void startStreams();
    void startDownload(int index);
    void sendUpload(int index, qint64 bytes);
    // A stream's request is over: false when it was aborted at the end, or failed (then the
    // probe has failed and said why).
    bool streamEnded(QNetworkReply *reply);
    void closeWindow();
    void sample();
    void finish();
    // Ends the probe: no more samples, every request still running aborted.
    void stop();

    static constexpr qint64 FirstUploadBytes = 16 * 1024; // answered within the window on a 150 KB/s uplink
    static constexpr qint64 MaxUploadBytes = 64LL * 1024 * 1024;
    static constexpr qint64 UploadRequestMs = 500;
    static constexpr int AwaitMs = 3000; // at most this long for the requests overlapping the window

    QList<QNetworkAccessManager *> m_managers; // one per stream: Qt's 6-per-host cap must not bite
    QList<Endpoint> m_endpoints;
    Options m_options;
    QList<QNetworkReply *> m_streams;
    QByteArray m_uploadPattern;
    QList<SpeedTest::Span> m_spans;   // upload: each answered request
    QList<QNetworkReply *> m_awaited; // upload: the requests in flight when the window closed
    bool m_windowClosed = false;
    QElapsedTimer m_clock;
    QTimer m_sampleTimer;
    ThroughputSampler m_sampler;
    qint64 m_streamBytes = 0; // received (download), or handed to the sockets (upload)
    double m_bestRttMs = -1;
    qsizetype m_rttEndpoint = 0; // the endpoint the round trip is measured with
    bool m_done = false;
};

} // namespace multilane
