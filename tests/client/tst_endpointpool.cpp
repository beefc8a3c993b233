#include "EndpointPool.h"

#include <QTest>

using namespace multilane;

static Endpoint endpoint(const char *url, int weight = 1, int maxConnections = 6)
{
    Endpoint e;
    e.url = QUrl(QString::fromLatin1(url));
    e.weight = weight;
    e.maxConnections = maxConnections;
    return e;
}

class TestEndpointPool : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundRobinSpreadsEvenly()
    {
        EndpointPool pool({endpoint("http://a:1"), endpoint("http://a:2"), endpoint("http://a:3")});
        QList<int> order;
        for (int i = 0; i < 6; ++i) {
            const auto lease = pool.acquire();
            QVERIFY(lease);
            order.append(lease->endpoint);
            pool.release(*lease);
        }
        QCOMPARE(order, (QList<int>{0, 1, 2, 0, 1, 2}));
    }

    void weightsSetTheShare()
    {
        EndpointPool pool({endpoint("http://a:1", 3), endpoint("http://a:2", 1)});
        QList<int> counts{0, 0};
        QList<int> firstFour;
        for (int i = 0; i < 400; ++i) {
            const auto lease = pool.acquire();
            QVERIFY(lease);
            ++counts[lease->endpoint];
            if (i < 4)
                firstFour.append(lease->endpoint);
            pool.release(*lease);
        }
        QCOMPARE(counts.at(0), 300);
        QCOMPARE(counts.at(1), 100);
        // Smooth: the light endpoint is interleaved, not served in a burst at the end.
        QVERIFY(firstFour.contains(1));
    }

    void capsAreNeverExceeded()
    {
        EndpointPool pool({endpoint("http://a:1", 1, 2), endpoint("http://a:2", 5, 1)});
        QCOMPARE(pool.totalCapacity(), 3);
        QList<EndpointLease> leases;
        while (const auto lease = pool.acquire())
            leases.append(*lease);
        QCOMPARE(leases.size(), 3);
        QCOMPARE(pool.busy(0), 2);
        QCOMPARE(pool.busy(1), 1);
        pool.release(leases.takeLast());
        QVERIFY(pool.acquire());
        QVERIFY(!pool.acquire());
    }

    void automaticCapIsWhatTheReceiverAllows()
    {
        EndpointPool pool({endpoint("http://a:1", 1, 0), endpoint("http://b:1", 1, 10)});
        QCOMPARE(pool.capacity(0), EndpointPool::DefaultAutomaticCap); // until the receiver says
        QCOMPARE(pool.capacity(1), 10);
        pool.setAllowedByReceiver(0, 40);
        pool.setAllowedByReceiver(1, 40); // a cap the user set stays
        QCOMPARE(pool.capacity(0), 40);
        QCOMPARE(pool.capacity(1), 10);
        QCOMPARE(pool.totalCapacity(), 50);
        QCOMPARE(pool.laneCount(0), 7); // 40 connections in lanes of at most six
        int toFirst = 0;
        while (const auto lease = pool.acquire())
            toFirst += lease->endpoint == 0 ? 1 : 0;
        QCOMPARE(toFirst, 40);
    }

    void lanesKeepEachManagerWithinSixConnections()
    {
        // Qt 6.4 opens at most six connections per host:port per manager.
        EndpointPool pool({endpoint("http://a:1", 1, 16)});
        QCOMPARE(pool.laneCount(0), 3);
        QList<int> perLane(3, 0);
        for (int i = 0; i < 16; ++i) {
            const auto lease = pool.acquire();
            QVERIFY(lease);
            ++perLane[lease->lane];
        }
        QVERIFY(!pool.acquire());
        for (int count : perLane)
            QVERIFY2(count <= EndpointPool::LaneCapacity, qPrintable(QString::number(count)));
    }
};

QTEST_GUILESS_MAIN(TestEndpointPool)
#include "tst_endpointpool.moc"
