// The OS reachability hint: a network that comes back gets lost endpoints checked at once, not at
// the end of their backoff; and the hint only fires on a real absent -> present transition.
#include "EndpointMonitor.h"
#include "EndpointPool.h"
#include "ReachabilityHint.h"

#include <QNetworkAccessManager>
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

private Q_SLOTS:
    void networkReturningChecksLostEndpointsAtOnce()
    {
        HealthServer server;
        QVERIFY(server.listen());
        EndpointPool pool({server.endpoint()});
        QNetworkAccessManager manager;
        EndpointMonitor::Options options;
        options.failuresToTrip = 1;
        options.firstProbeDelayMs = 600000; // only the hint can bring it back within the test
        EndpointMonitor monitor(pool, manager, options);
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

        // An endpoint that is up is not probed again by another return of the network.
        QSignalSpy requestsFinished(&manager, &QNetworkAccessManager::finished);
        hint.onReachabilityChanged(Reachability::Local);
        hint.onReachabilityChanged(Reachability::Site);
        QVERIFY(!requestsFinished.wait(300));
        QCOMPARE(server.requests, 1);
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
