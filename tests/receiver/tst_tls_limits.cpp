// The receiver's defences against slow and oversized request heads hold over HTTPS as over HTTP
// (issue #6), and a renewed certificate is served after SIGHUP: the real receiver with a TLS
// certificate, spoken to by hand.
#include "RawHttpConnection.h"
#include "ReceiverProcess.h"
#include "TestCertificate.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSslCertificate>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <signal.h>

using Reply = RawHttpConnection::Reply;

class TestTlsLimits : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_storage.isValid() && m_keys.isValid());
        m_certificate = TestCertificate::create(m_keys.path());
        QVERIFY(m_certificate.isValid());
        m_receiver = std::make_unique<ReceiverProcess>(m_storage.path());
        // A 2 s deadline for a head (and a handshake); reads of a body may still wait 60 s.
        QVERIFY2(m_receiver->start(1, {QStringLiteral("--quiet"), QStringLiteral("--tls-cert"),
                                       m_certificate.certificateFile, QStringLiteral("--tls-key"),
                                       m_certificate.keyFile, QStringLiteral("--idle-timeout"),
                                       QStringLiteral("2s")}),
                 qPrintable(m_receiver->errorText()));
        QCOMPARE(endpoint().scheme(), QStringLiteral("https"));
    }

    void healthOverTls()
    {
        const Reply reply =
            RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("GET", "/v1/health"));
        QCOMPARE(reply.status, 200);
    }

    void handshakeTrickledIsCutOff()
    {
        // The first bytes of a TLS record, then nothing: the handshake never finishes. httplib's
        // own TLS server gave it the 60 s read timeout; it gets the head's deadline now.
        QTcpSocket slow;
        slow.connectToHost(endpoint().host(), quint16(endpoint().port()));
        QVERIFY(slow.waitForConnected(5000));
        slow.write(QByteArray::fromHex("160301"));
        QVERIFY(slow.waitForBytesWritten(5000));
        QElapsedTimer timer;
        timer.start();
        QCOMPARE(
            RawHttpConnection::exchange(endpoint(), RawHttpConnection::request("GET", "/v1/health")).status,
            200);
        if (slow.state() == QAbstractSocket::ConnectedState)
            QVERIFY2(slow.waitForDisconnected(15000), "a handshake that never finished kept its connection");
        qInfo("unfinished handshake closed after %lld ms", qint64(timer.elapsed()));
    }

    void headTrickledGets408()
    {
        // One byte every 200 ms after a completed handshake (slowloris over TLS): httplib's read
        // timeout restarts with every byte; the head's deadline does not.
        const QByteArray request =
            RawHttpConnection::request("GET", "/v1/health") + "X-Slow: " + QByteArray(200, 's') + "\r\n\r\n";
        RawHttpConnection slow(endpoint());
        QVERIFY(slow.isConnected());
        QElapsedTimer timer;
        timer.start();
        bool cutOff = false;
        for (int sent = 0; sent < request.size() && timer.elapsed() < 15000; ++sent) {
            if (!slow.send(request.mid(sent, 1)) || slow.waitClosed(200)) {
                cutOff = true;
                break;
            }
        }
        qInfo("slow TLS client %s after %lld ms", cutOff ? "cut off" : "still open", qint64(timer.elapsed()));
        QVERIFY2(cutOff, "a client sending a byte every 200 ms kept its connection");
        const Reply answer = slow.readReply(2000);
        QCOMPARE(answer.status, 408);
        QCOMPARE(answer.errorCode(), QByteArray("request_timeout"));
    }

    void oversizedHeadGets431()
    {
        QByteArray headers;
        for (int i = 0; i < 2000; ++i)
            headers += "X-Filler-" + QByteArray::number(i) + ": " + QByteArray(100, 'f') + "\r\n";
        const Reply reply = RawHttpConnection::exchange(
            endpoint(), RawHttpConnection::request("GET", "/v1/health", {}, headers), 20000);
        QCOMPARE(reply.status, 431);
        QCOMPARE(reply.errorCode(), QByteArray("headers_too_large"));
    }

    void pipelinedOverTls()
    {
        RawHttpConnection connection(endpoint());
        QVERIFY(connection.send(RawHttpConnection::request("GET", "/v1/health") +
                                RawHttpConnection::request("GET", "/v1/health")));
        QCOMPARE(connection.readReply().status, 200);
        QCOMPARE(connection.readReply().status, 200);
    }

    void renewedCertificateServedAfterSighup()
    {
        const TestCertificate first = TestCertificate::create(m_keys.path(), QStringLiteral("first"));
        const TestCertificate renewed = TestCertificate::create(m_keys.path(), QStringLiteral("renewed"));
        QVERIFY(first.isValid() && renewed.isValid() && first.sha256Hex != renewed.sha256Hex);
        const QString liveCertificate = m_keys.filePath(QStringLiteral("live.crt"));
        const QString liveKey = m_keys.filePath(QStringLiteral("live.key"));
        QVERIFY(install(first, liveCertificate, liveKey));
        QTemporaryDir storage;
        ReceiverProcess receiver(storage.path());
        QVERIFY2(receiver.start(1, {QStringLiteral("--tls-cert"), liveCertificate,
                                    QStringLiteral("--tls-key"), liveKey}),
                 qPrintable(receiver.errorText()));
        const QUrl url = receiver.urls().constFirst();
        RawHttpConnection before(url);
        QCOMPARE(servedSha256(before), first.sha256Hex);

        QVERIFY(install(renewed, liveCertificate, liveKey));
        QCOMPARE(::kill(pid_t(receiver.process().processId()), SIGHUP), 0);
        const QByteArray reloaded = QByteArray("reloaded the TLS certificate; certificate sha256 ")
                                        .append(renewed.sha256Hex.toLatin1());
        QTRY_VERIFY_WITH_TIMEOUT(receiver.stderrTail().contains(reloaded), 30000);
        RawHttpConnection after(url);
        QCOMPARE(servedSha256(after), renewed.sha256Hex);
        // A connection made before the reload goes on with the certificate it began with.
        QVERIFY(before.send(RawHttpConnection::request("GET", "/v1/health")));
        QCOMPARE(before.readReply().status, 200);

        // A bad file leaves the renewed certificate in use, and the log says why.
        QFile broken(liveCertificate);
        QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
        broken.write("not a certificate\n");
        broken.close();
        QCOMPARE(::kill(pid_t(receiver.process().processId()), SIGHUP), 0);
        const QByteArray kept =
            QByteArray("kept the TLS certificate in use: ").append(QFile::encodeName(liveCertificate));
        QTRY_VERIFY_WITH_TIMEOUT(receiver.stderrTail().contains(kept), 30000);
        RawHttpConnection afterBadReload(url);
        QCOMPARE(servedSha256(afterBadReload), renewed.sha256Hex);
    }

private:
    static bool install(const TestCertificate &certificate, const QString &certificatePath,
                        const QString &keyPath)
    {
        QFile::remove(certificatePath);
        QFile::remove(keyPath);
        return QFile::copy(certificate.certificateFile, certificatePath) &&
               QFile::copy(certificate.keyFile, keyPath);
    }

    static QString servedSha256(RawHttpConnection &connection)
    {
        const QSslCertificate served = static_cast<QSslSocket &>(connection.socket()).peerCertificate();
        return QString::fromLatin1(served.digest(QCryptographicHash::Sha256).toHex());
    }

    QUrl endpoint() const { return m_receiver->urls().constFirst(); }

    QTemporaryDir m_storage;
    QTemporaryDir m_keys;
    TestCertificate m_certificate;
    std::unique_ptr<ReceiverProcess> m_receiver;
};

QTEST_GUILESS_MAIN(TestTlsLimits)
#include "tst_tls_limits.moc"
