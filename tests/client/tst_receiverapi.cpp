// How answers become values: in particular an answer cut short after its status line, which used
// to count as a refusal ("HTTP 200 OK", not retried) and failed a file when a receiver died at
// that moment (seen once in tst_faults under the sanitizers).
#include "ReceiverApi.h"

#include <QNetworkAccessManager>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace multilane;

class TestReceiverApi : public QObject {
    Q_OBJECT

    // One request to a server that answers with exactly `answer` and closes.
    ApiReply exchange(const QByteArray &answer)
    {
        QTcpServer server;
        if (!server.listen(QHostAddress::LocalHost))
            return {};
        connect(&server, &QTcpServer::newConnection, &server, [&server, answer] {
            QTcpSocket *socket = server.nextPendingConnection();
            connect(socket, &QTcpSocket::readyRead, socket, [socket, answer] {
                socket->readAll();
                socket->write(answer);
                socket->disconnectFromHost();
            });
        });
        Endpoint endpoint;
        endpoint.url = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort()));
        QNetworkAccessManager network;
        QNetworkReply *reply = network.get(ReceiverApi::request(endpoint, ReceiverApi::healthRoute(), 10000));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(10000))
            return {};
        return ReceiverApi::read(reply);
    }

private Q_SLOTS:
    void wholeAnswerIsRead()
    {
        const ApiReply reply = exchange("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                        "Content-Length: 11\r\n\r\n{\"ok\":true}");
        QVERIFY(!reply.error);
        QCOMPARE(reply.body.value(QStringLiteral("ok")).toBool(), true);
    }

    void answerCutShortIsNoAnswer()
    {
        const ApiReply reply = exchange("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                        "Content-Length: 100\r\n\r\n{\"received\":[");
        QVERIFY(reply.error);
        QCOMPARE(reply.error->httpStatus, 0);
        QVERIFY(reply.error->isRetriable());
        QVERIFY2(!reply.error->message.startsWith(QStringLiteral("HTTP 200")),
                 qPrintable(reply.error->message));
    }

    void refusalKeepsItsStatus()
    {
        const QByteArray body = R"({"error":{"code":"incomplete","message":"chunks missing"}})";
        const ApiReply reply =
            exchange("HTTP/1.1 409 Conflict\r\nContent-Type: application/json\r\nContent-Length: " +
                     QByteArray::number(body.size()) + "\r\n\r\n" + body);
        QVERIFY(reply.error);
        QCOMPARE(reply.error->httpStatus, 409);
        QCOMPARE(reply.error->code, QStringLiteral("incomplete"));
        QVERIFY(!reply.error->isRetriable());
    }
};

QTEST_GUILESS_MAIN(TestReceiverApi)
#include "tst_receiverapi.moc"
