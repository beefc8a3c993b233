#include "ReceiverProcess.h"
#include "ServiceHarness.h"

#include "ChunkHash.h"
#include "ReceiverMetrics.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

using namespace multilane;

namespace {

struct HttpResult {
    int status = 0;
    QByteArray body;
    QByteArray contentType;
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
};

// The value of one sample ("name{labels}" exactly as rendered); 0 when the series is absent,
// as Prometheus treats a counter that has not moved yet.
qint64 sample(const QByteArray &metrics, const QByteArray &series)
{
    for (const QByteArray &line : metrics.split('\n')) {
        if (line.startsWith(QByteArray(series + ' ')))
            return line.mid(series.size() + 1).toLongLong();
    }
    return 0;
}

const QByteArray MetricsToken = QByteArrayLiteral("metrics-secret-7f3a");

} // namespace

// GET /metrics on a real receiver process: who may read it, and that the counters move by exactly
// what an upload sent.
class TestMetrics : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_storage = std::make_unique<QTemporaryDir>();
        QVERIFY(m_storage->isValid());
        m_secrets = std::make_unique<QTemporaryDir>();
        QVERIFY(m_secrets->isValid());
        m_tokenFile = m_secrets->filePath(QStringLiteral("metrics-token"));
        QFile token(m_tokenFile);
        QVERIFY(token.open(QIODevice::WriteOnly));
        token.write(MetricsToken + "\n");
    }

    void cleanup()
    {
        m_receiver.reset();
        m_secrets.reset();
        m_storage.reset();
    }

    void noMetricsWithoutTokenOrListener()
    {
        startReceiver({});
        const HttpResult result = get(endpoint("/metrics"), MetricsToken);
        QCOMPARE(result.status, 404);
        QCOMPARE(
            result.json().value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(),
            QStringLiteral("not_found"));
    }

    void tokenGuardsTheUploadPorts()
    {
        startReceiver({QStringLiteral("--metrics-token-file"), m_tokenFile});
        const HttpResult none = get(endpoint("/metrics"), {});
        QCOMPARE(none.status, 401);
        const QJsonObject error = none.json().value(QStringLiteral("error")).toObject();
        QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("unauthorized"));
        QVERIFY(error.value(QStringLiteral("message"))
                    .toString()
                    .contains(QStringLiteral("--metrics-token-file")));
        QCOMPARE(get(endpoint("/metrics"), MetricsToken + "x").status, 401);
        QCOMPARE(get(endpoint("/metrics"), MetricsToken.left(5)).status, 401);

        const HttpResult allowed = get(endpoint("/metrics"), MetricsToken);
        QCOMPARE(allowed.status, 200);
        QVERIFY(allowed.contentType.startsWith("text/plain; version=0.0.4"));
        QVERIFY(allowed.body.contains("\nmultilane_build_info{version=\""));
        QVERIFY(allowed.body.contains("# TYPE multilane_chunks_total counter\n"));
        QVERIFY(sample(allowed.body, "multilane_storage_free_bytes") > 0);
        QVERIFY(sample(allowed.body, "multilane_open_connections") >= 1); // this very request
    }

    void countersMoveByExactlyTheUpload()
    {
        startReceiver({QStringLiteral("--metrics-token-file"), m_tokenFile});
        const QByteArray before = scrape();
        const QByteArray data = ServiceHarness::testData(3 * 65536 + 1000);
        const qint64 chunkSize = 65536;
        const QByteArray id = createUpload(QStringLiteral("m/file.bin"), data.size(), chunkSize);
        QVERIFY(!id.isEmpty());
        for (qint64 index = 0; index * chunkSize < data.size(); ++index)
            QCOMPARE(putChunk(id, index, data.mid(index * chunkSize, chunkSize)).status, 200);
        // A chunk refused before its body is read: an upload that does not exist.
        QCOMPARE(putChunk(QByteArray(32, 'a'), 0, {}).status, 404);
        QCOMPARE(complete(id, ServiceHarness::sha256(data)).status, 200);
        // An upload its last chunk completes: finished too, with no complete request.
        const QByteArray byChunk = createUpload(QStringLiteral("m/by-chunk.bin"), 1000, chunkSize);
        QCOMPARE(putChunk(byChunk, 0, data.left(1000), ServiceHarness::sha256(data.left(1000))).status, 200);
        const QByteArray aborted = createUpload(QStringLiteral("m/aborted.bin"), 10, 65536);
        QCOMPARE(finish(m_network.deleteResource(QNetworkRequest(endpoint("/v1/uploads/" + aborted)))).status,
                 200);
        // A request is counted after its response is written, so the last one may still be on its
        // way into the counters when the client already has the answer.
        QByteArray after;
        const auto moved = [&](const QByteArray &series) {
            return int(sample(after, series) - sample(before, series));
        };
        QTRY_COMPARE_WITH_TIMEOUT(
            (after = scrape(), moved("multilane_uploads_failed_total{reason=\"aborted\"}")), 1, 30000);
        QCOMPARE(moved("multilane_received_bytes_total{route=\"put_chunk\"}"), int(data.size()) + 1000);
        QCOMPARE(moved("multilane_chunks_total{result=\"stored\"}"), 5);
        QCOMPARE(moved("multilane_chunks_total{result=\"refused\"}"), 1);
        QCOMPARE(moved("multilane_http_requests_total{route=\"put_chunk\",code=\"200\"}"), 5);
        QCOMPARE(moved("multilane_http_requests_total{route=\"put_chunk\",code=\"404\"}"), 1);
        QCOMPARE(moved("multilane_uploads_started_total"), 3);
        QCOMPARE(moved("multilane_uploads_finished_total"), 2);
        QCOMPARE(moved("multilane_uploads_failed_total{reason=\"aborted\"}"), 1);
        QCOMPARE(moved("multilane_uploads_failed_total{reason=\"expired\"}"), 0);
        QVERIFY(moved("multilane_http_requests_total{route=\"metrics\",code=\"200\"}") >= 1);
    }

    // The sweep runs once a minute in the process, so this part is checked on the store itself:
    // only unfinished uploads count as expired, not the .done records removed with them.
    void expiredUploadsAreCountedByTheStore()
    {
        ServiceHarness harness;
        QVERIFY(harness.isValid());
        const QByteArray data = ServiceHarness::testData(1000);
        QCOMPARE(harness.upload(QStringLiteral("done.bin"), data, 65536).status, 200);
        QCOMPARE(harness.create(QStringLiteral("left1.bin"), 100, 65536).status, 201);
        QCOMPARE(harness.create(QStringLiteral("left2.bin"), 100, 65536).status, 201);
        const SweepReport report = harness.store().sweepExpired(
            std::chrono::hours(1), std::chrono::system_clock::now() + std::chrono::hours(2));
        QCOMPARE(report.lines.size(), 3); // two uploads and one completion record
        QCOMPARE(report.expiredUploads, 2);

        ReceiverMetrics metrics;
        metrics.countExpiredUploads(report.expiredUploads);
        metrics.countExpiredUploads(1); // passes add up
        QCOMPARE(sample(metrics.render(), "multilane_uploads_failed_total{reason=\"expired\"}"), qint64(3));
    }

    void metricsListenerServesOnlyMetricsAndHealth()
    {
        QProcess process;
        process.start(QStringLiteral(MULTILANE_RECEIVER_BIN),
                      {QStringLiteral("--storage"), m_storage->path(), QStringLiteral("--listen"),
                       QStringLiteral("127.0.0.1:0"), QStringLiteral("--metrics-listen"), QStringLiteral("0"),
                       QStringLiteral("--quiet")});
        QVERIFY(process.waitForStarted(10000));
        QUrl uploads;
        QUrl metrics;
        static const QRegularExpression line(QStringLiteral("^(listening|metrics) on (http://\\S+)$"));
        QDeadlineTimer deadline(15000);
        while ((uploads.isEmpty() || metrics.isEmpty()) && !deadline.hasExpired()) {
            if (!process.canReadLine() && !process.waitForReadyRead(int(deadline.remainingTime())))
                break;
            const QRegularExpressionMatch match = line.match(QString::fromUtf8(process.readLine()).trimmed());
            if (match.hasMatch())
                (match.captured(1) == QLatin1String("metrics") ? metrics : uploads) = QUrl(match.captured(2));
        }
        QVERIFY2(!metrics.isEmpty(), process.readAllStandardError().constData());
        QCOMPARE(metrics.host(), QStringLiteral("127.0.0.1")); // a bare port stays on loopback
        QCOMPARE(metrics.path(), QStringLiteral("/metrics"));

        const HttpResult scraped = get(metrics, {});
        QCOMPARE(scraped.status, 200);
        QVERIFY(scraped.body.contains("multilane_uploads_started_total 0\n"));
        QCOMPARE(get(metrics.resolved(QUrl(QStringLiteral("/v1/health"))), {}).status, 200);
        const HttpResult other = get(metrics.resolved(QUrl(QStringLiteral("/v1/probe?bytes=10"))), {});
        QCOMPARE(other.status, 404);
        QVERIFY(other.json().contains(QStringLiteral("error")));
        // The upload port has no /metrics without a token.
        QCOMPARE(get(uploads.resolved(QUrl(QStringLiteral("/metrics"))), {}).status, 404);
        process.kill();
        process.waitForFinished(10000);
    }

private:
    void startReceiver(const QStringList &arguments)
    {
        m_receiver = std::make_unique<ReceiverProcess>(m_storage->path());
        QVERIFY2(m_receiver->start(1, arguments + QStringList{QStringLiteral("--quiet")}),
                 qPrintable(m_receiver->errorText()));
    }

    QUrl endpoint(const QByteArray &pathAndQuery) const
    {
        return m_receiver->urls().at(0).resolved(QUrl::fromEncoded(pathAndQuery));
    }

    HttpResult finish(QNetworkReply *reply)
    {
        if (!reply->isFinished()) {
            QSignalSpy finished(reply, &QNetworkReply::finished);
            finished.wait(60000);
        }
        HttpResult result{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                          reply->readAll(),
                          reply->header(QNetworkRequest::ContentTypeHeader).toString().toLatin1()};
        reply->deleteLater();
        return result;
    }

    HttpResult get(const QUrl &url, const QByteArray &token)
    {
        QNetworkRequest request(url);
        if (!token.isEmpty())
            request.setRawHeader("Authorization", "Bearer " + token);
        return finish(m_network.get(request));
    }

    QByteArray scrape()
    {
        const HttpResult result = get(endpoint("/metrics"), MetricsToken);
        return result.status == 200 ? result.body : QByteArray();
    }

    HttpResult post(const QUrl &url, const QJsonObject &json)
    {
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        return finish(m_network.post(request, QJsonDocument(json).toJson()));
    }

    QByteArray createUpload(const QString &path, qint64 size, qint64 chunkSize)
    {
        const HttpResult created =
            post(endpoint("/v1/uploads"), {{QStringLiteral("path"), path},
                                           {QStringLiteral("size"), size},
                                           {QStringLiteral("mtime"), qint64(1700000000000)},
                                           {QStringLiteral("chunkSize"), chunkSize}});
        return created.status == 201 ? created.json().value(QStringLiteral("id")).toString().toLatin1()
                                     : QByteArray();
    }

    HttpResult putChunk(const QByteArray &id, qint64 index, const QByteArray &chunk,
                        const QByteArray &completeSha256 = {})
    {
        QNetworkRequest request(endpoint("/v1/uploads/" + id + "/chunks/" + QByteArray::number(index)));
        request.setRawHeader(
            "X-Chunk-Hash", ChunkHash::toHeader(ChunkHash::of(chunk.constData(), std::size_t(chunk.size()))));
        if (!completeSha256.isEmpty())
            request.setRawHeader("X-Complete-SHA256", completeSha256);
        return finish(m_network.put(request, chunk));
    }

    HttpResult complete(const QByteArray &id, const QByteArray &sha256)
    {
        return post(endpoint("/v1/uploads/" + id + "/complete"),
                    {{QStringLiteral("sha256"), QString::fromLatin1(sha256)}});
    }

    std::unique_ptr<QTemporaryDir> m_storage;
    std::unique_ptr<QTemporaryDir> m_secrets;
    std::unique_ptr<ReceiverProcess> m_receiver;
    QString m_tokenFile;
    QNetworkAccessManager m_network;
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
