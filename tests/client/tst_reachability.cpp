// The OS reachability hint: a network that comes back gets lost endpoints checked at once, not at
// the end of their backoff; and the hint only fires on a real absent -> present transition.
#include "EndpointMonitor.h"
#include "EndpointPool.h"
#include "NetworkTransport.h"
#include "ReachabilityHint.h"
#include "ReceiverProtocol.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace multilane;
using Reachability = QNetworkInformation::Reachability;

class TestReachability : public QObject {
    Q_OBJECT

    // Answers every request with a health reply and counts the requests.
    struct HealthServer {
        QTcpServer server;
        int requests = 0;

        bool listen()
        {
            QObject::connect(&server, &QTcpServer::newConnection, &server, [this] {
                while (QTcpSocket *socket = server.nextPendingConnection()) {
                    QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                        if (!socket->readAll().contains("\r\n\r\n"))
                            return;
                        ++requests;
                        const QByteArray body = R"({"status":"ok","protocol":1})";
                        socket->write(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                            QByteArray::number(body.size()) + "\r\n\r\n" + body);
                    });
                }
            });
            return server.listen(QHostAddress::LocalHost);
        }
        Endpoint endpoint() const
        {
            Endpoint endpoint;
            endpoint.url = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort()));
            return endpoint;
        }
    };

    // The real transport, counting what is sent through it.
    struct CountingTransport final : WireTransport {
        explicit CountingTransport(const EndpointPool &pool)
            : real(pool, 10000)
        {}
        WireCall *send(const EndpointLease &lease, const WireRequest &request) override
        {
            ++sent;
            return real.send(lease, request);
        }
        void closeIdleConnections() override { real.closeIdleConnections(); }
        NetworkTransport real;
        int sent = 0;
    };

private Q_SLOTS:
    void networkReturningChecksLostEndpointsAtOnce()
    {
        HealthServer server;
        QVERIFY(server.listen());
        EndpointPool pool({server.endpoint()});
        ReceiverProtocol protocol;
        CountingTransport transport(pool);
        EndpointMonitor::Options options;
        options.failuresToTrip = 1;
        options.firstProbeDelayMs = 600000; // only the hint can bring it back within the test
        EndpointMonitor monitor(pool, protocol, transport, options);
        QSignalSpy up(&monitor, &EndpointMonitor::endpointUp);
        QSignalSpy online(&monitor, &EndpointMonitor::onlineChanged);

        monitor.recordNetworkFailure(0);
        QVERIFY(!pool.isUp(0));
        QVERIFY(!monitor.isOnline());

        ReachabilityHint hint(nullptr);
        connect(&hint, &ReachabilityHint::networkReturned, &monitor, &EndpointMonitor::networkReachable);
        hint.onReachabilityChanged(Reachability::Disconnected);
        hint.onReachabilityChanged(Reachability::Online);
        QVERIFY(up.wait(10000));
        QCOMPARE(server.requests, 1);
        QVERIFY(pool.isUp(0));
        QCOMPARE(online.size(), 2); // offline, then online again
        QCOMPARE(online.last().first().toBool(), true);

        // An endpoint that is up is not probed again by another return of the network (a probe
        // would be sent from inside the hint's signal).
        QCOMPARE(transport.sent, 1);
        hint.onReachabilityChanged(Reachability::Local);
        hint.onReachabilityChanged(Reachability::Site);
        QCOMPARE(transport.sent, 1);
    }

    void hintFiresOnlyWhenTheNetworkReallyReturns()
    {
        ReachabilityHint hint(nullptr);
        QSignalSpy returned(&hint, &ReachabilityHint::networkReturned);
        hint.onReachabilityChanged(Reachability::Online); // from unknown: nothing was lost
        hint.onReachabilityChanged(Reachability::Unknown);
        hint.onReachabilityChanged(Reachability::Online);
        QCOMPARE(returned.size(), 0);
        hint.onReachabilityChanged(Reachability::Disconnected);
        hint.onReachabilityChanged(Reachability::Unknown); // says nothing: still absent
        hint.onReachabilityChanged(Reachability::Site);
        QCOMPARE(returned.size(), 1);
        hint.onReachabilityChanged(Reachability::Online);
        QCOMPARE(returned.size(), 1);
        hint.onReachabilityChanged(Reachability::Local);
        hint.onReachabilityChanged(Reachability::Online);
        QCOMPARE(returned.size(), 2);
    }

    void hintSaysWhenTheSystemReportsNoNetwork()
    {
        ReachabilityHint hint(nullptr);
        QSignalSpy lost(&hint, &ReachabilityHint::networkLost);
        QVERIFY(!hint.saysNetworkAbsent()); // cannot tell: not absent
        hint.onReachabilityChanged(Reachability::Online);
        hint.onReachabilityChanged(Reachability::Disconnected);
        QVERIFY(hint.saysNetworkAbsent());
        QCOMPARE(lost.size(), 1);
        hint.onReachabilityChanged(Reachability::Unknown); // says nothing: still absent
        hint.onReachabilityChanged(Reachability::Local);
        QVERIFY(hint.saysNetworkAbsent());
        QCOMPARE(lost.size(), 1);
        hint.onReachabilityChanged(Reachability::Site);
        QVERIFY(!hint.saysNetworkAbsent());
    }

    void hintFiresWhenTheMediumChanges()
    {
        using Medium = QNetworkInformation::TransportMedium;
        ReachabilityHint hint(nullptr);
        QSignalSpy changed(&hint, &ReachabilityHint::networkChanged);
        hint.onTransportMediumChanged(Medium::WiFi); // the first medium known: nothing changed
        hint.onTransportMediumChanged(Medium::WiFi);
        hint.onTransportMediumChanged(Medium::Unknown); // between two media: says nothing
        hint.onTransportMediumChanged(Medium::WiFi);
        QCOMPARE(changed.size(), 0);
        hint.onTransportMediumChanged(Medium::Unknown);
        hint.onTransportMediumChanged(Medium::Ethernet);
        QCOMPARE(changed.size(), 1);
        hint.onTransportMediumChanged(Medium::Cellular);
        QCOMPARE(changed.size(), 2);
    }
};

QTEST_GUILESS_MAIN(TestReachability)
#include "tst_reachability.moc"
