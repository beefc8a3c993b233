#include "ReceiverProcess.h"
#include "ServiceHarness.h"

#include "ChunkHash.h"

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

// Crash consistency (issue #3): SIGKILL the receiver while chunks stream in, start it again on
// the same folder, and check that every chunk it reports as held has exactly the right bytes.
class TestCrashRecovery : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void killedMidUploadKeepsOnlyGoodChunks()
    {
        QTemporaryDir storage;
        QVERIFY(storage.isValid());
        ReceiverProcess receiver(storage.path());
        QVERIFY2(receiver.start(3, {QStringLiteral("--quiet")}), qPrintable(receiver.errorText()));
        const qint64 chunkSize = 4 << 20;
        const QByteArray data = ServiceHarness::testData(64 * chunkSize + 4321, 11);
        const qint64 chunkCount = (data.size() + chunkSize - 1) / chunkSize;

        const QJsonObject created =
            call(receiver.urls().at(0), "POST", "/v1/uploads",
                 QJsonDocument(QJsonObject{{QStringLiteral("path"), QStringLiteral("crash/big.bin")},
                                           {QStringLiteral("size"), data.size()},
                                           {QStringLiteral("mtime"), qint64(1700000000000)},
                                           {QStringLiteral("chunkSize"), chunkSize}})
                     .toJson());
        const QByteArray id = created.value(QStringLiteral("id")).toString().toLatin1();
        QCOMPARE(id.size(), 32);

        // Every chunk at once over three ports (18 connections): most are mid-body at the kill.
        int finished = 0;
        QList<QNetworkReply *> replies;
        for (qint64 index = 0; index < chunkCount; ++index)
            replies.append(putChunk(receiver.urls().at(int(index % 3)), id, index, data, chunkSize));
        for (QNetworkReply *reply : std::as_const(replies))
            connect(reply, &QNetworkReply::finished, this, [&finished] { ++finished; });
        QTRY_VERIFY_WITH_TIMEOUT(finished >= 6, 30000);
        receiver.kill(); // SIGKILL
        QTRY_COMPARE_WITH_TIMEOUT(finished, int(chunkCount), 30000);
        qDeleteAll(replies);

        QVERIFY2(receiver.restart(), qPrintable(receiver.errorText()));
        const QJsonObject state = call(receiver.urls().at(1), "GET", "/v1/uploads/" + id);
        QList<qint64> held;
        for (const QJsonValue &index : state.value(QStringLiteral("received")).toArray())
            held.append(index.toInteger());
        QVERIFY2(!held.isEmpty() && held.size() < chunkCount, qPrintable(QString::number(held.size())));

        QFile part(storage.path() + QStringLiteral("/.multilane/uploads/") + QString::fromLatin1(id) +
                   QStringLiteral(".part"));
        QVERIFY(part.open(QIODevice::ReadOnly));
        for (const qint64 index : std::as_const(held)) {
            QVERIFY(part.seek(index * chunkSize));
            QVERIFY2(part.read(chunkSize) == data.mid(index * chunkSize, chunkSize),
                     qPrintable(QStringLiteral("held chunk %1 has wrong bytes").arg(index)));
        }

        // The rest, then complete: the whole file's SHA-256 matches.
        int resent = 0;
        QList<QNetworkReply *> rest;
        for (qint64 index = 0; index < chunkCount; ++index) {
            if (!held.contains(index))
                rest.append(putChunk(receiver.urls().at(int(index % 3)), id, index, data, chunkSize));
        }
        for (QNetworkReply *reply : std::as_const(rest)) {
            connect(reply, &QNetworkReply::finished, this, [&resent, reply] {
                resent += reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200;
            });
        }
        QTRY_COMPARE_WITH_TIMEOUT(resent, int(rest.size()), 60000);
        qDeleteAll(rest);
        const QJsonObject done =
            call(receiver.urls().at(2), "POST", "/v1/uploads/" + id + "/complete",
                 QJsonDocument(QJsonObject{{QStringLiteral("sha256"),
                                            QString::fromLatin1(ServiceHarness::sha256(data))}})
                     .toJson());
        QCOMPARE(done.value(QStringLiteral("status")).toString(), QStringLiteral("stored"));
        QFile stored(storage.path() + QStringLiteral("/crash/big.bin"));
        QVERIFY(stored.open(QIODevice::ReadOnly));
        QVERIFY(stored.readAll() == data);
    }

private:
    QNetworkReply *putChunk(const QUrl &base, const QByteArray &id, qint64 index, const QByteArray &data,
                            qint64 chunkSize)
    {
        const QByteArray chunk = data.mid(index * chunkSize, chunkSize);
        QNetworkRequest request(base.resolved(
            QUrl(QStringLiteral("/v1/uploads/%1/chunks/%2").arg(QString::fromLatin1(id)).arg(index))));
        request.setRawHeader(
            "X-Chunk-Hash", ChunkHash::toHeader(ChunkHash::of(chunk.constData(), std::size_t(chunk.size()))));
        return m_network.put(request, chunk);
    }

    QJsonObject call(const QUrl &base, const QByteArray &method, const QByteArray &path,
                     const QByteArray &body = {})
    {
        QNetworkRequest request(base.resolved(QUrl::fromEncoded(path)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = m_network.sendCustomRequest(request, method, body);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            finished.wait(30000);
        const QJsonObject json = QJsonDocument::fromJson(reply->readAll()).object();
        delete reply;
        return json;
    }

    QNetworkAccessManager m_network;
};

QTEST_GUILESS_MAIN(TestCrashRecovery)
#include "tst_crashrecovery.moc"
