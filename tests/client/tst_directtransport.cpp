// DirectTransport, our own HTTP/1.1 client: answers of every framing read whole, answers cut
// short taken as no answer, keep-alive reuse and its limits (Connection: close, a connection the
// server closed while idle), early refusals during a body, timeouts, redirects left alone, file
// bodies sent from the file (against the real receiver), and what the kernel acknowledged.
#include "DirectTransport.h"
#include "EndpointPool.h"
#include "ReceiverProcess.h"
#include "TestCertificate.h"
#include "TestFiles.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <functional>
#include <memory>
#include <utility>

using namespace multilane;

namespace {

// A server that reads each request (head, and a body as long as its Content-Length) and
// answers what the script says for it; it counts connections and requests.
class ScriptedServer : public QObject {
public:
    struct Answer {
        QByteArray bytes;
        bool close = false;        // close the connection after answering
        bool answerAtHead = false; // answer as soon as the head is in (an early refusal)
        int delayMs = 0;           // hold the answer this long, and read nothing more meanwhile
    };
    using Script = std::function<Answer(int request, const QByteArray &head)>;

    explicit ScriptedServer(Script script)
        : m_script(std::move(script))
    {
        m_server.listen(QHostAddress::LocalHost);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                ++connections;
                auto buffer = std::make_shared<QByteArray>();
                connect(socket, &QTcpSocket::readyRead, socket,
                        [this, socket, buffer] { serve(socket, *buffer); });
            }
        });
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort())); }

    int connections = 0;
    int requests = 0;
    QByteArray lastHead;
    QByteArray lastBody;
    // Requests whose head was in before a held answer to the one ahead of them went out: sent
    // behind it (pipelined) rather than after its answer.
    int headsInWhileHeld = 0;

private:
    void serve(QTcpSocket *socket, QByteArray &buffer)
    {
        buffer += socket->readAll();
        if (socket->property("holding").toBool())
            return;
        for (;;) {
            const qsizetype end = buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const QByteArray head = buffer.left(end + 4);
            qint64 length = 0;
            for (const QByteArray &line : head.split('\n')) {
                if (line.toLower().startsWith("content-length:"))
                    length = line.mid(15).trimmed().toLongLong();
            }
            const Answer answer = m_script(requests, head);
            if (!answer.answerAtHead && buffer.size() < end + 4 + length)
                return; // the body is still coming
            ++requests;
            lastHead = head;
            lastBody = answer.answerAtHead ? QByteArray() : buffer.mid(end + 4, length);
            buffer.remove(0, answer.answerAtHead ? buffer.size() : end + 4 + length);
            if (answer.delayMs > 0) {
                socket->setProperty("holding", true);
                QTimer::singleShot(answer.delayMs, socket, [this, socket, &buffer, answer] {
                    headsInWhileHeld += buffer.contains("\r\n\r\n") ? 1 : 0;
                    socket->setProperty("holding", false);
                    socket->write(answer.bytes);
                    if (answer.close)
                        socket->disconnectFromHost();
                    else
                        serve(socket, buffer);
                });
                return;
            }
            socket->write(answer.bytes);
            if (answer.close) {
                socket->disconnectFromHost();
                return;
            }
        }
    }

    Script m_script;
    QTcpServer m_server;
};

QByteArray okJson(const QByteArray &body = "{\"ok\":true}")
{
    return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
           QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

// 200 with `firstBody` to the first request, 300 ms late (the server holds it), and with
// `laterBody` at once to the others.
ScriptedServer::Script firstAnswerHeld(const QByteArray &firstBody = "{\"ok\":true}",
                                       const QByteArray &laterBody = "{\"ok\":true}")
{
    return [firstBody, laterBody](int request, const QByteArray &) {
        ScriptedServer::Answer answer{okJson(request == 0 ? firstBody : laterBody)};
        answer.delayMs = request == 0 ? 300 : 0;
        return answer;
    };
}

Endpoint endpointAt(const QUrl &url)
{
    Endpoint endpoint;
    endpoint.url = url;
    return endpoint;
}

WireRequest get(const QUrl &base, const QString &path = QStringLiteral("/v1/health"))
{
    WireRequest request;
    request.method = "GET";
    request.url = base;
    request.url.setPath(path);
    return request;
}

WireRequest put(const QUrl &base, int bodySize)
{
    WireRequest request = get(base, QStringLiteral("/v1/discard"));
    request.method = "PUT";
    request.body = QByteArray(bodySize, 'x');
    return request;
}

// Sends a PUT of 1000 bytes and, once its body is all written, one of 2000 bytes behind it
// (the second is null if that was refused, or the first never got that far).
std::pair<std::unique_ptr<WireCall>, std::unique_ptr<WireCall>>
sendOneBehindAnother(DirectTransport &transport, const QUrl &url)
{
    std::unique_ptr<WireCall> first(transport.send({0, 0}, put(url, 1000)));
    qint64 written = 0;
    const QMetaObject::Connection counting =
        QObject::connect(first.get(), &WireCall::bytesSent, [&written](qint64 total) { written = total; });
    const bool allWritten = QTest::qWaitFor([&written] { return written == 1000; }, 10000);
    QObject::disconnect(counting);
    std::unique_ptr<WireCall> second(allWritten ? transport.sendBehind(first.get(), {0, 0}, put(url, 2000))
                                                : nullptr);
    return {std::move(first), std::move(second)};
}

// Sends a PUT of 1000 bytes, then `behind` more of 1000 bytes on its connection, each once the
// body before it is all written (fewer if one is refused or never gets that far).
std::vector<std::unique_ptr<WireCall>> sendSeveralBehind(DirectTransport &transport, const QUrl &url,
                                                         int behind)
{
    std::vector<std::unique_ptr<WireCall>> calls;
    calls.emplace_back(transport.send({0, 0}, put(url, 1000)));
    for (int i = 0; i < behind; ++i) {
        WireCall *last = calls.back().get();
        qint64 written = 0;
        const QMetaObject::Connection counting =
            QObject::connect(last, &WireCall::bytesSent, [&written](qint64 total) { written = total; });
        const bool allWritten = QTest::qWaitFor([&written] { return written == 1000; }, 10000);
        QObject::disconnect(counting);
        WireCall *next = allWritten ? transport.sendBehind(last, {0, 0}, put(url, 1000)) : nullptr;
        if (!next)
            break;
        calls.emplace_back(next);
    }
    return calls;
}

// Answers "0", "1"... in order, the first 300 ms late (the server holds it, reading nothing).
ScriptedServer::Script numberedAnswersFirstHeld()
{
    return [](int request, const QByteArray &) {
        ScriptedServer::Answer answer{okJson(QByteArray::number(request))};
        answer.delayMs = request == 0 ? 300 : 0;
        return answer;
    };
}

// Sends and waits for the end; the reply (a default one if it never came).
WireReply exchange(DirectTransport &transport, const WireRequest &request, QList<qint64> *sent = nullptr)
{
    WireCall *call = transport.send({0, WireTransport::ControlLane}, request);
    QSignalSpy finished(call, &WireCall::finished);
    if (sent)
        QObject::connect(call, &WireCall::bytesSent, call, [sent](qint64 total) { sent->append(total); });
    if (!finished.wait(20000))
        return {};
    const WireReply reply = call->reply();
    delete call;
    return reply;
}

} // namespace

class TestDirectTransport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void wholeAnswersOfEveryFraming()
    {
        ScriptedServer server([](int request, const QByteArray &) {
            if (request == 0)
                return ScriptedServer::Answer{okJson()};
            if (request == 1)
                return ScriptedServer::Answer{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                              "4\r\n{\"ok\r\n7;x=y\r\n\":true}\r\n0\r\nTrailer: 1\r\n\r\n"};
            if (request == 2) // an interim answer first
                return ScriptedServer::Answer{"HTTP/1.1 100 Continue\r\n\r\n" + okJson()};
            return ScriptedServer::Answer{"HTTP/1.0 200 OK\r\n\r\n{\"ok\":true}", true}; // to the close
        });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        for (int i = 0; i < 4; ++i) {
            const WireReply reply = exchange(transport, get(server.url()));
            QVERIFY2(reply.isSuccess(),
                     qPrintable(QString::number(i) + QLatin1Char(' ') + reply.networkError));
            QCOMPARE(reply.body, QByteArray("{\"ok\":true}"));
        }
        QCOMPARE(server.connections, 1); // kept alive through the first three
    }

    void headAnswerHasNoBody()
    {
        ScriptedServer server([](int, const QByteArray &) {
            return ScriptedServer::Answer{"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n"};
        });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        WireRequest head = get(server.url());
        head.method = "HEAD";
        for (int i = 0; i < 2; ++i) {
            const WireReply reply = exchange(transport, head);
            QVERIFY(reply.isSuccess());
            QCOMPARE(reply.header("content-length"), QByteArray("5000"));
        }
        QCOMPARE(server.connections, 1);
    }

    void answerCutShortIsNoAnswer()
    {
        ScriptedServer server([](int, const QByteArray &) {
            return ScriptedServer::Answer{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"received\":[",
                                          true};
        });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        const WireReply reply = exchange(transport, get(server.url()));
        QVERIFY(!reply.isWhole());
        QVERIFY(!reply.networkError.isEmpty());
        QVERIFY(!reply.closedUnanswered);
    }

    void refusalKeepsItsStatusAndHeaders()
    {
        const QByteArray body = R"({"error":{"code":"incomplete","message":"chunks missing"}})";
        ScriptedServer server([body](int, const QByteArray &) {
            return ScriptedServer::Answer{"HTTP/1.1 409 Conflict\r\nRetry-After: 3\r\nContent-Length: " +
                                          QByteArray::number(body.size()) + "\r\n\r\n" + body};
        });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        const WireReply reply = exchange(transport, get(server.url()));
        QVERIFY(reply.isWhole());
        QCOMPARE(reply.httpStatus, 409);
        QCOMPARE(reply.reasonPhrase, QByteArray("Conflict"));
        QCOMPARE(reply.header("retry-after"), QByteArray("3"));
        QCOMPARE(reply.body, body);
    }

    void redirectIsAnAnswerNotFollowed()
    {
        ScriptedServer server([](int, const QByteArray &) {
            return ScriptedServer::Answer{"HTTP/1.1 302 Found\r\nLocation: http://example.invalid/\r\n"
                                          "Content-Length: 0\r\n\r\n"};
        });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        const WireReply reply = exchange(transport, get(server.url()));
        QCOMPARE(reply.httpStatus, 302);
        QCOMPARE(server.requests, 1);
    }

    void closedWithoutAWord()
    {
        ScriptedServer server([](int, const QByteArray &) { return ScriptedServer::Answer{{}, true}; });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        const WireReply reply = exchange(transport, get(server.url()));
        QCOMPARE(reply.httpStatus, 0);
        QVERIFY(reply.closedUnanswered);
        QCOMPARE(server.connections, 1); // a new connection closed at once is not tried again
    }

    void connectionCloseIsHonoured()
    {
        ScriptedServer server([](int, const QByteArray &) {
            return ScriptedServer::Answer{
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"};
        });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        QVERIFY(exchange(transport, get(server.url())).isSuccess());
        QVERIFY(exchange(transport, get(server.url())).isSuccess());
        QCOMPARE(server.connections, 2);
    }

    // Connections opened ahead of the requests (their handshakes beside a create's round trip)
    // carry the requests that come: no further connection is opened for them, and asking again
    // opens none beyond the number asked for.
    void warmedConnectionsCarryTheRequestsToCome()
    {
        ScriptedServer server([](int, const QByteArray &) { return ScriptedServer::Answer{okJson()}; });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        transport.warmUp(0, server.url(), 3);
        QTRY_COMPARE(server.connections, 3);
        QCOMPARE(transport.openConnections(), 3);
        transport.warmUp(0, server.url(), 3);
        QCOMPARE(transport.openConnections(), 3);
        QList<WireCall *> calls;
        for (int i = 0; i < 3; ++i)
            calls.append(transport.send({0, 0}, get(server.url())));
        for (WireCall *call : calls) {
            QSignalSpy finished(call, &WireCall::finished);
            QVERIFY(call->reply().isSuccess() || finished.wait(20000));
            QVERIFY(call->reply().isSuccess());
            delete call;
        }
        QCOMPARE(server.requests, 3);
        QCOMPARE(server.connections, 3);
    }

    // A request for a connection still opening waits for it rather than opening another.
    void aRequestTakesAConnectionStillOpening()
    {
        ScriptedServer server([](int, const QByteArray &) { return ScriptedServer::Answer{okJson()}; });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        transport.warmUp(0, server.url(), 1);
        QVERIFY(exchange(transport, get(server.url())).isSuccess());
        QCOMPARE(server.connections, 1);
    }

    void staleKeptAliveConnectionIsRetriedOnce()
    {
        // The server closes the kept-alive connection as the second request arrives, without a
        // word (its idle timeout struck at that moment): the request goes again on a new one.
        ScriptedServer server([](int request, const QByteArray &) {
            return request == 1 ? ScriptedServer::Answer{{}, true} : ScriptedServer::Answer{okJson()};
        });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        QVERIFY(exchange(transport, get(server.url())).isSuccess());
        const WireReply second = exchange(transport, get(server.url()));
        QVERIFY2(second.isSuccess(), qPrintable(second.networkError));
        QCOMPARE(server.requests, 3);
        QCOMPARE(server.connections, 2);
    }

    // A request sent behind another whose body is all written goes on the same connection
    // before the first one's answer (the server holds it): the connection carries it instead of
    // idling, and each gets its own answer, in order.
    void aRequestGoesBehindOneWaitingForItsAnswer()
    {
        ScriptedServer server(firstAnswerHeld("\"first\"", "\"second\""));
        DirectTransport transport({endpointAt(server.url())}, 10000);
        auto [first, second] = sendOneBehindAnother(transport, server.url());
        QVERIFY(second);
        QSignalSpy secondSent(second.get(), &WireCall::bytesSent);
        QSignalSpy firstDone(first.get(), &WireCall::finished);
        QSignalSpy secondDone(second.get(), &WireCall::finished);
        QVERIFY(secondDone.wait(10000));
        QCOMPARE(firstDone.size(), 1); // answered first
        QCOMPARE(first->reply().body, QByteArray("\"first\""));
        QCOMPARE(second->reply().body, QByteArray("\"second\""));
        QCOMPARE(secondSent.last().first().toLongLong(), 2000);
        QCOMPARE(server.headsInWhileHeld, 1);
        QCOMPARE(server.connections, 1);
        QCOMPARE(transport.openConnections(), 1); // kept alive for the next
    }

    // Short requests on a long round trip: several go behind one another on one connection,
    // and their answers come back to each in order.
    void severalRequestsGoBehindOneAnother()
    {
        ScriptedServer server(numberedAnswersFirstHeld());
        DirectTransport transport({endpointAt(server.url())}, 10000);
        const std::vector<std::unique_ptr<WireCall>> calls = sendSeveralBehind(transport, server.url(), 4);
        QCOMPARE(calls.size(), std::size_t(5));
        std::vector<std::unique_ptr<QSignalSpy>> done;
        for (const auto &call : calls)
            done.push_back(std::make_unique<QSignalSpy>(call.get(), &WireCall::finished));
        QVERIFY(done.back()->wait(10000));
        for (std::size_t i = 0; i < calls.size(); ++i) {
            QCOMPARE(done[i]->size(), 1);
            QCOMPARE(calls[i]->reply().body, QByteArray::number(qulonglong(i)));
        }
        QCOMPARE(server.headsInWhileHeld, 1); // the others were sent before the first answer
        QCOMPARE(server.connections, 1);
        QCOMPARE(transport.openConnections(), 1);
    }

    // Cancelling one of several behind closes the connection (only that takes its bytes back):
    // it ends cancelled, and every other, none of them answered yet, goes again and is answered.
    void cancellingOneOfSeveralBehindSendsTheOthersAgain()
    {
        ScriptedServer server(numberedAnswersFirstHeld());
        DirectTransport transport({endpointAt(server.url())}, 10000);
        const std::vector<std::unique_ptr<WireCall>> calls = sendSeveralBehind(transport, server.url(), 3);
        QCOMPARE(calls.size(), std::size_t(4));
        std::vector<std::unique_ptr<QSignalSpy>> done;
        for (const auto &call : calls)
            done.push_back(std::make_unique<QSignalSpy>(call.get(), &WireCall::finished));
        calls[2]->abort();
        QCOMPARE(done[2]->size(), 1);
        QCOMPARE(calls[2]->reply().networkError, QStringLiteral("Operation canceled"));
        for (std::size_t i : {std::size_t(0), std::size_t(1), std::size_t(3)}) {
            QTRY_COMPARE_WITH_TIMEOUT(done[i]->size(), 1, 10000);
            QVERIFY2(calls[i]->reply().isSuccess(), qPrintable(calls[i]->reply().networkError));
        }
        QCOMPARE(done[2]->size(), 1);
        QVERIFY(server.connections >= 2);
    }

    // The first answer closes the connection: the request behind it was never answered there,
    // and goes again on a new connection.
    void theRequestBehindGoesAgainWhenTheConnectionCloses()
    {
        ScriptedServer server([](int request, const QByteArray &) {
            if (request > 0)
                return ScriptedServer::Answer{okJson("\"again\"")};
            ScriptedServer::Answer answer{
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}", true};
            answer.delayMs = 300;
            return answer;
        });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        auto [first, second] = sendOneBehindAnother(transport, server.url());
        QVERIFY(second);
        QSignalSpy secondDone(second.get(), &WireCall::finished);
        QVERIFY(secondDone.wait(10000));
        QVERIFY(first->reply().isSuccess());
        QVERIFY2(second->reply().isSuccess(), qPrintable(second->reply().networkError));
        QCOMPARE(second->reply().body, QByteArray("\"again\""));
        QCOMPARE(server.headsInWhileHeld, 1);
        QCOMPARE(server.connections, 2);
    }

    // Cancelling the request behind takes back its bytes by closing the connection: the one
    // ahead, whose answer had not begun, goes again on a new connection and is answered.
    void cancellingTheRequestBehindSendsTheOneAheadAgain()
    {
        ScriptedServer server(firstAnswerHeld());
        DirectTransport transport({endpointAt(server.url())}, 10000);
        auto [first, second] = sendOneBehindAnother(transport, server.url());
        QVERIFY(second);
        QSignalSpy secondSent(second.get(), &WireCall::bytesSent);
        QVERIFY(secondSent.wait(10000)); // on its way behind the first
        QSignalSpy firstDone(first.get(), &WireCall::finished);
        QSignalSpy secondDone(second.get(), &WireCall::finished);
        second->abort();
        QCOMPARE(secondDone.size(), 1);
        QCOMPARE(second->reply().networkError, QStringLiteral("Operation canceled"));
        QVERIFY(firstDone.wait(10000));
        QVERIFY2(first->reply().isSuccess(), qPrintable(first->reply().networkError));
        QCOMPARE(server.connections, 2);
    }

    // Nothing goes behind a call that is over.
    void nothingGoesBehindACallThatIsOver()
    {
        ScriptedServer server([](int, const QByteArray &) { return ScriptedServer::Answer{okJson()}; });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        WireCall *first = transport.send({0, 0}, put(server.url(), 10));
        QSignalSpy done(first, &WireCall::finished);
        QVERIFY(done.wait(10000));
        QVERIFY(!transport.sendBehind(first, {0, 0}, put(server.url(), 10)));
        delete first;
    }

    // Connections opened once a TLS session is known resume it: the receiver does the
    // certificate and key-exchange work once per client, not once per connection.
    void laterTlsConnectionsResumeTheSession()
    {
        QTemporaryDir keys;
        QTemporaryDir storage;
        QVERIFY(keys.isValid() && storage.isValid());
        const TestCertificate certificate = TestCertificate::create(keys.path());
        QVERIFY(certificate.isValid());
        ReceiverProcess receiver(storage.path());
        QVERIFY2(receiver.start(1, {QStringLiteral("--tls-cert"), certificate.certificateFile,
                                    QStringLiteral("--tls-key"), certificate.keyFile}),
                 qPrintable(receiver.errorText()));
        const QUrl url = receiver.urls().first();
        Endpoint endpoint = endpointAt(url);
        endpoint.pinSha256 = *EndpointParser::pinFromHex(certificate.sha256Hex).value;
        DirectTransport transport({endpoint}, 10000);
        QVERIFY(exchange(transport, get(url)).isSuccess()); // the first connection, its session
        // Three at once: one takes the idle connection, two open new ones.
        std::vector<std::unique_ptr<WireCall>> calls;
        std::vector<std::unique_ptr<QSignalSpy>> done;
        for (int i = 0; i < 3; ++i) {
            calls.emplace_back(transport.send({0, 0}, get(url)));
            done.push_back(std::make_unique<QSignalSpy>(calls.back().get(), &WireCall::finished));
        }
        for (std::size_t i = 0; i < calls.size(); ++i) {
            QTRY_COMPARE_WITH_TIMEOUT(done[i]->size(), 1, 10000);
            QVERIFY2(calls[i]->reply().isSuccess(), qPrintable(calls[i]->reply().networkError));
        }
        QCOMPARE(transport.openConnections(), 3);
        receiver.process().terminate();
        QVERIFY(receiver.process().waitForFinished(10000));
        const QString log = QString::fromUtf8(receiver.stderrTail());
        static const QRegularExpression handshakes(
            QStringLiteral("tls handshakes: (\\d+) \\((\\d+) resumed\\)"));
        const QRegularExpressionMatch match = handshakes.match(log);
        QVERIFY2(match.hasMatch(), qPrintable(log));
        QCOMPARE(match.captured(1).toInt(), 3);
        QCOMPARE(match.captured(2).toInt(), 2);
    }

    void earlyRefusalDuringABody()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("big.bin"));
        QVERIFY(TestFiles::write(path, 64 << 20, 7));
        ScriptedServer server([](int, const QByteArray &) {
            const QByteArray body = R"({"error":{"code":"too_large","message":"no"}})";
            return ScriptedServer::Answer{
                "HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\nContent-Length: " +
                    QByteArray::number(body.size()) + "\r\n\r\n" + body,
                true, true};
        });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        WireRequest put = get(server.url(), QStringLiteral("/v1/files/big.bin"));
        put.method = "PUT";
        put.file = FileSlice{path, 0, 64 << 20};
        const WireReply reply = exchange(transport, put);
        QCOMPARE(reply.httpStatus, 413);
        QVERIFY(reply.body.contains("too_large"));
    }

    void silentServerTimesOut()
    {
        ScriptedServer server([](int, const QByteArray &) { return ScriptedServer::Answer{}; });
        DirectTransport transport({endpointAt(server.url())}, 300);
        const WireReply reply = exchange(transport, get(server.url()));
        QCOMPARE(reply.httpStatus, 0);
        QVERIFY(!reply.networkError.isEmpty());
        QVERIFY(!reply.closedUnanswered);
    }

    void refusedConnection()
    {
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost));
        const QUrl url(QStringLiteral("http://127.0.0.1:%1").arg(closed.serverPort()));
        closed.close();
        DirectTransport transport({endpointAt(url)}, 10000);
        const WireReply reply = exchange(transport, get(url));
        QCOMPARE(reply.httpStatus, 0);
        QVERIFY(!reply.networkError.isEmpty());
    }

    void unreadableBodyIsLocal()
    {
        ScriptedServer server([](int, const QByteArray &) { return ScriptedServer::Answer{okJson()}; });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        WireRequest put = get(server.url(), QStringLiteral("/v1/files/x"));
        put.method = "PUT";
        put.file = FileSlice{QStringLiteral("/nonexistent/multilane-test"), 0, 10};
        const WireReply reply = exchange(transport, put);
        QVERIFY(reply.unreadableBody);
        QCOMPARE(server.connections, 0);
    }

    void fileSlicesArriveAsTheyAreInTheFile()
    {
        // A small slice goes out with its head in one send(), a bigger one by sendfile(): the
        // same bytes either way, and the same progress.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("source.bin"));
        QVERIFY(TestFiles::write(path, 100000, 5));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray whole = file.readAll();
        ScriptedServer server([](int, const QByteArray &) { return ScriptedServer::Answer{okJson()}; });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        const QList<std::pair<qint64, qint64>> slices = {{0, 1},         {1000, 5000}, {3, 16384}, {7, 16385},
                                                         {50000, 40000}, {0, 0},       {99999, 1}};
        for (const auto &[offset, length] : slices) {
            WireRequest put = get(server.url(), QStringLiteral("/v1/files/x"));
            put.method = "PUT";
            put.file = FileSlice{path, offset, length};
            QList<qint64> sent;
            const WireReply reply = exchange(transport, put, &sent);
            const QByteArray where = QByteArray::number(offset) + '+' + QByteArray::number(length);
            QVERIFY2(reply.isSuccess(), where.constData());
            QVERIFY2(server.lastBody == whole.mid(offset, length), where.constData());
            if (length > 0)
                QVERIFY2(!sent.isEmpty() && sent.last() == length, where.constData());
        }
        // A file that ends before its slice does is a body that could not be read, small or not.
        for (const qint64 length : {qint64(100), qint64(100000)}) {
            WireRequest put = get(server.url(), QStringLiteral("/v1/files/x"));
            put.method = "PUT";
            put.file = FileSlice{path, 99990, length};
            QVERIFY(exchange(transport, put).unreadableBody);
        }
    }

    void requestHeadAsSent()
    {
        ScriptedServer server([](int, const QByteArray &) { return ScriptedServer::Answer{okJson()}; });
        DirectTransport transport({endpointAt(server.url())}, 10000);
        WireRequest post = get(server.url(), QStringLiteral("/v1/uploads/a b"));
        post.method = "POST";
        post.url.setQuery(QStringLiteral("x=1&y=%2F"));
        post.body = "{}";
        post.setHeader("X-Test", "evil\r\nInjected: 1");
        QVERIFY(exchange(transport, post).isSuccess());
        const QByteArray head = server.lastHead;
        QVERIFY2(head.startsWith("POST /v1/uploads/a%20b?x=1&y=%2F HTTP/1.1\r\n"), head.constData());
        const QByteArray host = "\r\nHost: 127.0.0.1:" + QByteArray::number(server.url().port()) + "\r\n";
        QVERIFY(head.contains(host));
        QVERIFY(head.contains("\r\nContent-Length: 2\r\n"));
        QVERIFY(head.contains("\r\nAccept-Encoding: identity\r\n"));
        QVERIFY(!head.contains("\r\nInjected:"));
    }

    void fileBodiesToTheRealReceiver()
    {
        QTemporaryDir dir;
        ReceiverProcess receiver(dir.filePath(QStringLiteral("storage")));
        QVERIFY2(receiver.start(1), qPrintable(receiver.errorText()));
        const QString path = dir.filePath(QStringLiteral("source.bin"));
        const qint64 size = (24 << 20) + 12345;
        QVERIFY(TestFiles::write(path, size, 11));
        DirectTransport transport({endpointAt(receiver.urls().first())}, 30000);
        for (int i = 0; i < 3; ++i) {
            WireRequest put = get(receiver.urls().first(), QStringLiteral("/v1/files/copy%1.bin").arg(i));
            put.method = "PUT";
            put.file = FileSlice{path, 0, size};
            QList<qint64> sent;
            const WireReply reply = exchange(transport, put, &sent);
            QVERIFY2(reply.isSuccess(), qPrintable(reply.networkError + QString::fromUtf8(reply.body)));
            QVERIFY(!sent.isEmpty());
            QCOMPARE(sent.last(), size);
            QVERIFY(TestFiles::sameContents(path, dir.filePath(QStringLiteral("storage/copy%1.bin").arg(i))));
        }
        // A slice of the file, too.
        WireRequest discard = get(receiver.urls().first(), QStringLiteral("/v1/discard"));
        discard.method = "PUT";
        discard.file = FileSlice{path, 4096, 1 << 20};
        QVERIFY(exchange(transport, discard).isSuccess());
        QCOMPARE(transport.openConnections(), 1);
        const WireTransport::Delivery delivery = transport.delivery();
        QVERIFY(delivery.bytes >= 0);
        transport.closeIdleConnections();
        QCOMPARE(transport.openConnections(), 0);
    }

    void deliveryCountsAcknowledgedBytes()
    {
        QTemporaryDir dir;
        ReceiverProcess receiver(dir.filePath(QStringLiteral("storage")));
        QVERIFY2(receiver.start(1), qPrintable(receiver.errorText()));
        const QString path = dir.filePath(QStringLiteral("source.bin"));
        QVERIFY(TestFiles::write(path, 8 << 20, 3));
        DirectTransport transport({endpointAt(receiver.urls().first())}, 30000);
        QVERIFY(exchange(transport, get(receiver.urls().first())).isSuccess());
        QCOMPARE(transport.delivery().bytes, 0); // the first sample is the baseline
        WireRequest discard = get(receiver.urls().first(), QStringLiteral("/v1/discard"));
        discard.method = "PUT";
        discard.file = FileSlice{path, 0, 8 << 20};
        QVERIFY(exchange(transport, discard).isSuccess());
        QVERIFY(transport.delivery().bytes >= 8 << 20);
    }
};

QTEST_GUILESS_MAIN(TestDirectTransport)
#include "tst_directtransport.moc"
