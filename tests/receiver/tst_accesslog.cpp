#include "ReceiverProcess.h"
#include "ServiceHarness.h"

#include "ChunkHash.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <memory>
#include <unistd.h>

using namespace multilane;

// --access-log on a real receiver process: one logfmt line per request with the route as a
// template, the sizes, the peer, and never the token the client sent.
class TestAccessLog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_storage = std::make_unique<QTemporaryDir>();
        m_logs = std::make_unique<QTemporaryDir>();
        QVERIFY(m_storage->isValid() && m_logs->isValid());
        m_logFile = m_logs->filePath(QStringLiteral("access.log"));
        m_receiver = std::make_unique<ReceiverProcess>(m_storage->path());
        QVERIFY2(m_receiver->start(1, {QStringLiteral("--quiet"), QStringLiteral("--access-log"), m_logFile}),
                 qPrintable(m_receiver->errorText()));
    }

    void cleanup()
    {
        m_receiver.reset();
        m_logs.reset();
        m_storage.reset();
    }

    void oneLinePerRequestWithoutTheToken()
    {
        const QByteArray chunk = ServiceHarness::testData(5000);
        const QByteArray id = createUpload(chunk.size());
        QVERIFY(!id.isEmpty());
        QNetworkRequest put(endpoint("/v1/uploads/" + id + "/chunks/0"));
        put.setRawHeader("X-Chunk-Hash",
                         ChunkHash::toHeader(ChunkHash::of(chunk.constData(), std::size_t(chunk.size()))));
        put.setRawHeader("Authorization", "Bearer very-secret-token-123");
        QCOMPARE(status(m_network.put(put, chunk)), 200);
        QCOMPARE(status(m_network.get(QNetworkRequest(endpoint("/v1/probe?bytes=777")))), 200);
        QCOMPARE(status(m_network.get(QNetworkRequest(endpoint("/odd%20path%0Ainjected=1")))), 404);

        QStringList lines;
        QTRY_COMPARE_WITH_TIMEOUT((lines = logLines()).size(), 4, 30000);
        const QString create = lineWith(lines, QStringLiteral(" method=POST "));
        QVERIFY2(create.contains(QLatin1String(" method=POST route=/v1/uploads status=201 bytes_in=")),
                 qPrintable(create));

        const QString chunkLine = lineWith(lines, QStringLiteral(" method=PUT "));
        QVERIFY2(chunkLine.startsWith(QLatin1String("ts=20")), qPrintable(chunkLine));
        const QString expected =
            QStringLiteral(" method=PUT route=/v1/uploads/{id}/chunks/{n} id=%1 chunk=0 status=200 "
                           "bytes_in=5000 bytes_out=")
                .arg(QString::fromLatin1(id));
        QVERIFY2(chunkLine.contains(expected), qPrintable(chunkLine));
        QVERIFY2(chunkLine.contains(QLatin1String(" peer=127.0.0.1:")), qPrintable(chunkLine));
        QVERIFY2(chunkLine.endsWith(QLatin1String(" token=-")), qPrintable(chunkLine)); // no token hook wired
        QVERIFY(chunkLine.contains(QLatin1String(" ms=")));

        const QString probe = lineWith(lines, QStringLiteral(" route=/v1/probe "));
        QVERIFY2(
            probe.contains(QLatin1String(" method=GET route=/v1/probe status=200 bytes_in=0 bytes_out=777 ")),
            qPrintable(probe));
        // An unknown path is quoted, its newline defused: still one line, no field injected.
        const QString unknown = lineWith(lines, QStringLiteral(" route=- "));
        QVERIFY2(unknown.contains(QLatin1String(" route=- path=\"/odd path?injected=1\" status=404 ")),
                 qPrintable(lines.join(QLatin1Char('\n'))));

        QFile file(m_logFile);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains("very-secret-token"));
    }

    void sighupReopensTheFile()
    {
        QCOMPARE(status(m_network.get(QNetworkRequest(endpoint("/v1/health")))), 200);
        QTRY_COMPARE_WITH_TIMEOUT(logLines().size(), 1, 30000);
        const QString rotated = m_logFile + QStringLiteral(".1");
        QVERIFY(QFile::rename(m_logFile, rotated));
        QCOMPARE(::kill(pid_t(m_receiver->process().processId()), SIGHUP), 0);
        // Until the receiver has reopened, lines still go to the rotated file: wait for a line
        // in the new one.
        QTRY_VERIFY_WITH_TIMEOUT(
            (status(m_network.get(QNetworkRequest(endpoint("/v1/health")))) == 200 && !logLines().isEmpty()),
            30000);
        QVERIFY(logLines().first().contains(QLatin1String(" route=/v1/health status=200 ")));
        QCOMPARE(m_receiver->process().state(), QProcess::Running);
    }

    // A receiver whose stderr pipe nobody reads (here: a pipe the test never drains) must keep
    // answering: once the pipe is full, lines are dropped instead of stalling every request.
    void unreadStderrDoesNotStallRequests()
    {
        int pipeEnds[2];
        QCOMPARE(::pipe(pipeEnds), 0);
        QProcess process;
        process.setChildProcessModifier([&pipeEnds] { ::dup2(pipeEnds[1], STDERR_FILENO); });
        process.setProcessChannelMode(QProcess::SeparateChannels);
        process.start(QStringLiteral(MULTILANE_RECEIVER_BIN),
                      {QStringLiteral("--storage"), m_storage->path(), QStringLiteral("--listen"),
                       QStringLiteral("127.0.0.1:0")}); // not quiet: access lines go to stderr
        ::close(pipeEnds[1]);
        QVERIFY(process.waitForStarted(10000));
        QVERIFY(process.waitForReadyRead(15000));
        const QUrl base(QString::fromUtf8(process.readLine()).trimmed().mid(13)); // "listening on "
        QVERIFY2(base.port() > 0, qPrintable(base.toString()));
        // ~150 bytes a line: 1000 requests are more than twice what a 64 KiB pipe holds.
        int answered = 0;
        for (int i = 0; i < 1000; ++i) {
            QNetworkRequest request(base.resolved(QUrl(QStringLiteral("/v1/nothing-here"))));
            request.setTransferTimeout(10000);
            if (status(m_network.get(request)) != 404)
                break; // stalled: one timeout is enough to know
            ++answered;
        }
        QCOMPARE(answered, 1000);
        process.kill();
        process.waitForFinished(10000);
        ::close(pipeEnds[0]);
    }

private:
    // The one line holding `part`, or all of them when that is not exactly one (for the message).
    static QString lineWith(const QStringList &lines, const QString &part)
    {
        const QStringList found = lines.filter(part);
        return found.size() == 1 ? found.first() : lines.join(QLatin1Char('\n'));
    }

    QUrl endpoint(const QByteArray &pathAndQuery) const
    {
        return m_receiver->urls().at(0).resolved(QUrl::fromEncoded(pathAndQuery));
    }

    QStringList logLines() const
    {
        QFile file(m_logFile);
        if (!file.open(QIODevice::ReadOnly))
            return {};
        return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

    QByteArray finish(QNetworkReply *reply, int *status)
    {
        if (!reply->isFinished()) {
            QSignalSpy finished(reply, &QNetworkReply::finished);
            finished.wait(30000);
        }
        *status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray body = reply->readAll();
        reply->deleteLater();
        return body;
    }

    int status(QNetworkReply *reply)
    {
        int code = 0;
        finish(reply, &code);
        return code;
    }

    QByteArray createUpload(qint64 size)
    {
        QNetworkRequest request(endpoint("/v1/uploads"));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        const QJsonObject spec{{QStringLiteral("path"), QStringLiteral("log/file.bin")},
                               {QStringLiteral("size"), size},
                               {QStringLiteral("mtime"), qint64(1700000000000)},
                               {QStringLiteral("chunkSize"), qint64(65536)}};
        int code = 0;
        const QByteArray body = finish(m_network.post(request, QJsonDocument(spec).toJson()), &code);
        return code == 201
                   ? QJsonDocument::fromJson(body).object().value(QStringLiteral("id")).toString().toLatin1()
                   : QByteArray();
    }

    std::unique_ptr<QTemporaryDir> m_storage;
    std::unique_ptr<QTemporaryDir> m_logs;
    std::unique_ptr<ReceiverProcess> m_receiver;
    QString m_logFile;
    QNetworkAccessManager m_network;
};

QTEST_GUILESS_MAIN(TestAccessLog)
#include "tst_accesslog.moc"
