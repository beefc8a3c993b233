// The receiver's defences against slow and oversized request heads hold over HTTPS as over HTTP
// (issue #6): the real receiver with a TLS certificate, spoken to by hand.
#include "RawHttpConnection.h"
#include "ReceiverProcess.h"
#include "TestCertificate.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

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

private:
    QUrl endpoint() const { return m_receiver->urls().constFirst(); }

    QTemporaryDir m_storage;
    QTemporaryDir m_keys;
    TestCertificate m_certificate;
    std::unique_ptr<ReceiverProcess> m_receiver;
};

QTEST_GUILESS_MAIN(TestTlsLimits)
#include "tst_tls_limits.moc"
