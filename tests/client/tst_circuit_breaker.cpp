// The circuit breaker (EndpointMonitor): an endpoint whose receiver is gone is taken out on the
// first failure of a request there, by the health check that failure brings, not only after
// several failures in a row (which an upload that sends less there, or ends, may never make).
#include "EndpointMonitor.h"
#include "EndpointPool.h"
#include "NetworkTransport.h"
#include "ReceiverProtocol.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

using namespace multilane;

class TestCircuitBreaker : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aFailureWhereNothingAnswersTakesTheEndpointOut()
    {
        // A port nothing listens on: the receiver that was there is gone.
        QTcpServer gone;
        QVERIFY(gone.listen(QHostAddress::LocalHost));
        Endpoint endpoint;
        endpoint.url = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(gone.serverPort()));
        gone.close();
        EndpointPool pool({endpoint});
        ReceiverProtocol protocol;
        NetworkTransport transport(pool, 10000);
        EndpointMonitor::Options options;   // three failures in a row to trip by count
        options.firstProbeDelayMs = 600000; // no re-check brings it back within the test
        EndpointMonitor monitor(pool, protocol, transport, options);
        QSignalSpy down(&monitor, &EndpointMonitor::endpointDown);
        QSignalSpy online(&monitor, &EndpointMonitor::onlineChanged);

        monitor.recordNetworkFailure(0);
        QVERIFY(pool.isUp(0)); // the check is on its way
        QVERIFY(down.wait(10000));
        QCOMPARE(down.first().first().toInt(), 0);
        QVERIFY(!pool.isUp(0));
        QCOMPARE(online.size(), 1);
        QCOMPARE(online.first().first().toBool(), false);
    }
};

QTEST_GUILESS_MAIN(TestCircuitBreaker)
#include "tst_circuit_breaker.moc"
