#include "ReceiverProcess.h"
#include "ServiceHarness.h"

#include "ChunkHash.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

using namespace multilane;

namespace {

struct HttpResult {
    int status = 0;
    QByteArray body;
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
};

} // namespace

// The real multilane-receiver binary on loopback ports, spoken to with QNetworkAccessManager and
// curl, as the client and scripts will.
class TestReceiverProcess : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_storage = std::make_unique<QTemporaryDir>();
        QVERIFY(m_storage->isValid());
        m_receiver = std::make_unique<ReceiverProcess>(m_storage->path());
        QVERIFY2(m_receiver->start(3, {QStringLiteral("--quiet")}), qPrintable(m_receiver->errorText()));
        QCOMPARE(m_receiver->urls().size(), 3);
    }

    void cleanup()
    {
        m_receiver.reset();
        m_storage.reset();
    }

    void healthOnEveryPort()
    {
        for (const QUrl &url : m_receiver->urls()) {
            const HttpResult result = get(url.resolved(QUrl(QStringLiteral("/v1/health"))));
            QCOMPARE(result.status, 200);
            QCOMPARE(result.json().value(QStringLiteral("protocol")).toInt(), 1);
        }
    }

    // GET /v1/health tells a self-tuning client how many connections it may open to the port.
    void healthAnnouncesConnectionsPerClient()
    {
        const auto announced = [this](const QStringList &arguments) {
            ReceiverProcess receiver(m_storage->path());
            if (!receiver.start(1, QStringList{QStringLiteral("--quiet")} + arguments))
                return QJsonValue(receiver.errorText());
            const HttpResult health =
                get(receiver.urls().constFirst().resolved(QUrl(QStringLiteral("/v1/health"))));
            return health.json()
                .value(QStringLiteral("limits"))
                .toObject()
                .value(QStringLiteral("connectionsPerClient"));
        };
        QCOMPARE(announced({}), QJsonValue(64));
        QCOMPARE(announced({QStringLiteral("--max-connections"), QStringLiteral("40")}), QJsonValue(10));
        QCOMPARE(announced({QStringLiteral("--client-connections"), QStringLiteral("7")}), QJsonValue(7));

        QProcess refused;
        refused.start(QStringLiteral(MULTILANE_RECEIVER_BIN),
                      {QStringLiteral("--storage"), m_storage->path(), QStringLiteral("--client-connections"),
                       QStringLiteral("0")});
        QVERIFY(refused.waitForFinished(10000));
        QCOMPARE(refused.exitCode(), 2);
        QCOMPARE(
            refused.readAllStandardError(),
            QByteArray("multilane-receiver: --client-connections takes a number from 1 to 10000, not '0'\n"));
    }

    void probeReturnsTheBytesAskedFor()
    {
        const HttpResult result = get(endpoint(1, "/v1/probe?bytes=5000000"));
        QCOMPARE(result.status, 200);
        QCOMPARE(result.body.size(), 5000000);
        QCOMPARE(get(endpoint(0, "/v1/probe?bytes=2000000000")).status, 413);
    }

    void chunkedUploadThroughThreePorts()
    {
        const QByteArray data = ServiceHarness::testData(10 * 1000 * 1000 + 123);
        const qint64 chunkSize = 1 << 20;
        const QByteArray id = createUpload(0, QStringLiteral("big/file.bin"), data.size(), chunkSize);
        QVERIFY(!id.isEmpty());
        for (qint64 index = 0; index * chunkSize < data.size(); ++index) {
            const HttpResult sent =
                putChunk(int(index % 3), id, index, data.mid(index * chunkSize, chunkSize));
            QCOMPARE(sent.status, 200);
        }
        const HttpResult done = completeUpload(2, id, ServiceHarness::sha256(data));
        QCOMPARE(done.status, 200);
        QCOMPARE(done.json().value(QStringLiteral("status")).toString(), QStringLiteral("stored"));
        QCOMPARE(readStored(QStringLiteral("big/file.bin")), data);
    }

    void answersAreNeverCompressed()
    {
        // Qt asks for br and gzip; httplib would brotli every small JSON answer at quality 11,
        // which was most of the receiver's CPU on many small files.
        QNetworkRequest request(endpoint(0, "/v1/uploads"));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setRawHeader("Accept-Encoding", "br, gzip, deflate");
        QNetworkReply *reply = m_network.post(request, createBody(QStringLiteral("plain.bin"), 3000, 1024));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        QVERIFY(reply->isFinished() || finished.wait(20000));
        QCOMPARE(reply->rawHeader("Content-Encoding"), QByteArray());
        const HttpResult created = finish(reply);
        QCOMPARE(created.status, 201);
        QVERIFY2(!created.json().value(QStringLiteral("id")).toString().isEmpty(), created.body.constData());
    }

    void curlWholeFilePut()
    {
        const QString source =
            m_storage->path() + QStringLiteral("/../curl-source-%1.pdf").arg(quintptr(this));
        const QByteArray data = ServiceHarness::testData(3 * 1000 * 1000, 7);
        QFile file(source);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(data);
        file.close();
        const auto removeSource = qScopeGuard([&] { QFile::remove(source); });
        const QString url = endpoint(1, "/v1/files/inbox/").toString();
        QCOMPARE(curl({QStringLiteral("-T"), source, url}), QByteArray("201"));
        QCOMPARE(readStored(QStringLiteral("inbox/") + QFileInfo(source).fileName()), data);
    }

    // A client's escaped newline ("%0A" in the stored name) is logged as stored: it once filled a
    // place marker of the log line ("new201Aline.txt -> … %4").
    void escapedNamesAreLoggedAsStored()
    {
        m_receiver = std::make_unique<ReceiverProcess>(m_storage->path()); // not --quiet: it logs
        QVERIFY2(m_receiver->start(1), qPrintable(m_receiver->errorText()));
        QCOMPARE(
            finish(m_network.put(QNetworkRequest(endpoint(0, "/v1/files/new%250Aline.txt")), "x")).status,
            201);
        QCOMPARE(readStored(QStringLiteral("new%0Aline.txt")), QByteArray("x"));
        QByteArray logged;
        QTRY_VERIFY_WITH_TIMEOUT((logged += m_receiver->takeStderr()).contains(" -> 201 "), 10000);
        QVERIFY2(logged.contains("PUT /v1/files/new%0Aline.txt -> 201 {"), logged.constData());
    }

    void sameChunkToTwoPortsAtOnce()
    {
        const QByteArray data = ServiceHarness::testData(8 << 20, 3);
        const QByteArray id = createUpload(0, QStringLiteral("twice.bin"), data.size(), data.size());
        const QByteArray hash =
            ChunkHash::toHeader(ChunkHash::of(data.constData(), std::size_t(data.size())));
        QNetworkReply *replies[2];
        for (int port = 0; port < 2; ++port) {
            QNetworkRequest request(endpoint(port, "/v1/uploads/" + id + "/chunks/0"));
            request.setRawHeader("X-Chunk-Hash", hash);
            replies[port] = m_network.put(request, data);
        }
        int duplicates = 0;
        for (QNetworkReply *reply : replies) {
            const HttpResult result = finish(reply);
            QCOMPARE(result.status, 200);
            duplicates += result.json().value(QStringLiteral("duplicate")).toBool() ? 1 : 0;
        }
        QCOMPARE(duplicates, 1);
        QCOMPARE(completeUpload(1, id, ServiceHarness::sha256(data)).status, 200);
        QCOMPARE(readStored(QStringLiteral("twice.bin")), data);
    }

    void twoProcessesShareOneStorageFolder()
    {
        ReceiverProcess second(m_storage->path());
        QVERIFY2(second.start(1, {QStringLiteral("--quiet")}), qPrintable(second.errorText()));
        const QUrl secondUrl = second.urls().constFirst();
        const QByteArray data = ServiceHarness::testData(6 * 1000 * 1000, 5);
        const qint64 chunkSize = 512 * 1024;
        const QByteArray id = createUpload(0, QStringLiteral("shared/half.bin"), data.size(), chunkSize);
        // The second process finds the same upload by its key.
        const HttpResult found = post(secondUrl.resolved(QUrl(QStringLiteral("/v1/uploads"))),
                                      createBody(QStringLiteral("shared/half.bin"), data.size(), chunkSize));
        QCOMPARE(found.status, 200);
        QCOMPARE(found.json().value(QStringLiteral("id")).toString().toLatin1(), id);
        for (qint64 index = 0; index * chunkSize < data.size(); ++index) {
            const QByteArray chunk = data.mid(index * chunkSize, chunkSize);
            const QUrl base = index % 2 == 0 ? m_receiver->urls().constFirst() : secondUrl;
            QNetworkRequest request(base.resolved(
                QUrl(QStringLiteral("/v1/uploads/%1/chunks/%2").arg(QString::fromLatin1(id)).arg(index))));
            request.setRawHeader("X-Chunk-Hash", ChunkHash::toHeader(ChunkHash::of(
                                                     chunk.constData(), std::size_t(chunk.size()))));
            QCOMPARE(finish(m_network.put(request, chunk)).status, 200);
        }
        const HttpResult done = post(
            secondUrl.resolved(QUrl(QStringLiteral("/v1/uploads/%1/complete").arg(QString::fromLatin1(id)))),
            completeBody(ServiceHarness::sha256(data)));
        QCOMPARE(done.status, 200);
        QCOMPARE(readStored(QStringLiteral("shared/half.bin")), data);
        // The first process answers a repeated complete from the shared .done record.
        QCOMPARE(completeUpload(0, id, ServiceHarness::sha256(data)).json(), done.json());
    }

    void hostilePathsRefusedThenNormalUploadWorks()
    {
        const QString source = m_storage->path() + QStringLiteral("/../hostile-%1.txt").arg(quintptr(this));
        QFile file(source);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("evil");
        file.close();
        const auto removeSource = qScopeGuard([&] { QFile::remove(source); });
        const QString base = m_receiver->urls().constFirst().toString();
        const QStringList hostile{QStringLiteral("/v1/files/../escape.txt"),
                                  QStringLiteral("/v1/files/a/../../escape.txt"),
                                  QStringLiteral("/v1/files/%2e%2e/escape.txt"),
                                  QStringLiteral("/v1/files//tmp/escape.txt"),
                                  QStringLiteral("/v1/files/escape%00.txt"),
                                  QStringLiteral("/v1/files/.multilane/uploads/x.json")};
        for (const QString &path : hostile)
            QCOMPARE(curl({QStringLiteral("--path-as-is"), QStringLiteral("-T"), source, base + path}),
                     QByteArray("400"));
        const QDir outside(m_storage->path() + QStringLiteral("/.."));
        QVERIFY(!outside.exists(QStringLiteral("escape.txt")));
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/escape.txt")));

        const QByteArray data = ServiceHarness::testData(100000, 9);
        QNetworkRequest request(endpoint(0, "/v1/files/after/ok.bin"));
        QCOMPARE(finish(m_network.put(request, data)).status, 201);
        QCOMPARE(readStored(QStringLiteral("after/ok.bin")), data);
    }

    void stopsOnSigterm()
    {
        QProcess &process = m_receiver->process();
        QSignalSpy finished(&process, &QProcess::finished);
        process.terminate();
        QVERIFY(finished.wait(10000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 0);
    }

    void portInUseIsReported()
    {
        const QString port = QString::number(m_receiver->urls().constFirst().port());
        QProcess second;
        second.start(QStringLiteral(MULTILANE_RECEIVER_BIN),
                     {QStringLiteral("--storage"), m_storage->path(), QStringLiteral("--listen"),
                      QStringLiteral("127.0.0.1:") + port});
        QVERIFY(second.waitForFinished(10000));
        QCOMPARE(second.exitCode(), 2);
        const QString error = QString::fromUtf8(second.readAllStandardError());
        QVERIFY2(error.contains(port) && error.contains(QStringLiteral("in use")), qPrintable(error));
    }

private:
    QUrl endpoint(int port, const QByteArray &pathAndQuery) const
    {
        return m_receiver->urls().at(port).resolved(QUrl::fromEncoded(pathAndQuery));
    }

    HttpResult finish(QNetworkReply *reply)
    {
        if (!reply->isFinished()) {
            QSignalSpy finished(reply, &QNetworkReply::finished);
            finished.wait(60000);
        }
        HttpResult result{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                          reply->readAll()};
        reply->deleteLater();
        return result;
    }

    HttpResult get(const QUrl &url) { return finish(m_network.get(QNetworkRequest(url))); }

    HttpResult post(const QUrl &url, const QByteArray &json)
    {
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        return finish(m_network.post(request, json));
    }

    static QByteArray createBody(const QString &path, qint64 size, qint64 chunkSize)
    {
        return QJsonDocument(QJsonObject{{QStringLiteral("path"), path},
                                         {QStringLiteral("size"), size},
                                         {QStringLiteral("mtime"), qint64(1700000000000)},
                                         {QStringLiteral("chunkSize"), chunkSize}})
            .toJson();
    }

    static QByteArray completeBody(const QByteArray &sha256)
    {
        return QJsonDocument(QJsonObject{{QStringLiteral("sha256"), QString::fromLatin1(sha256)}}).toJson();
    }

    QByteArray createUpload(int port, const QString &path, qint64 size, qint64 chunkSize)
    {
        const HttpResult created = post(endpoint(port, "/v1/uploads"), createBody(path, size, chunkSize));
        return created.status == 201 ? created.json().value(QStringLiteral("id")).toString().toLatin1()
                                     : QByteArray();
    }

    HttpResult putChunk(int port, const QByteArray &id, qint64 index, const QByteArray &chunk)
    {
        QNetworkRequest request(endpoint(port, "/v1/uploads/" + id + "/chunks/" + QByteArray::number(index)));
        request.setRawHeader(
            "X-Chunk-Hash", ChunkHash::toHeader(ChunkHash::of(chunk.constData(), std::size_t(chunk.size()))));
        return finish(m_network.put(request, chunk));
    }

    HttpResult completeUpload(int port, const QByteArray &id, const QByteArray &sha256)
    {
        return post(endpoint(port, "/v1/uploads/" + id + "/complete"), completeBody(sha256));
    }

    // Runs curl and returns the HTTP status it printed.
    static QByteArray curl(QStringList arguments)
    {
        arguments.prepend(QStringLiteral("-sS"));
        arguments << QStringLiteral("-o") << QStringLiteral("/dev/null") << QStringLiteral("-w")
                  << QStringLiteral("%{http_code}");
        QProcess process;
        process.start(QStringLiteral("curl"), arguments);
        if (!process.waitForFinished(60000))
            return "curl did not finish";
        return process.readAllStandardOutput().trimmed();
    }

    QByteArray readStored(const QString &path) const
    {
        QFile file(m_storage->path() + QLatin1Char('/') + path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

    std::unique_ptr<QTemporaryDir> m_storage;
    std::unique_ptr<ReceiverProcess> m_receiver;
    QNetworkAccessManager m_network;
};

QTEST_GUILESS_MAIN(TestReceiverProcess)
#include "tst_receiverprocess.moc"
