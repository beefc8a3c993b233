#include "ConcurrencyTuner.h"
#include "EndpointPool.h"
#include "EndpointScorer.h"

#include <QTest>
#include <functional>

using namespace multilane;

// A link model for the tuner: goodput as a function of the number of connections.
static int settle(ConcurrencyTuner &tuner, const std::function<double(int)> &goodput, qint64 seconds = 60)
{
    qint64 bytes = 0;
    for (qint64 t = 0; t <= seconds * 1000; t += 100) {
        bytes += qint64(goodput(tuner.level()) / 10);
        tuner.update(t, bytes, 0);
    }
    return tuner.level();
}

class TestTuning : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tunerClimbsToWherePerConnectionLimitsStop()
    {
        // 2 MB/s per connection, 24 MB/s link: 12 connections fill it, more add nothing.
        ConcurrencyTuner tuner({4, 1, 36});
        const int level = settle(tuner, [](int n) { return std::min(2e6 * n, 24e6); });
        QVERIFY2(level >= 12, qPrintable(QString::number(level)));
        QVERIFY(tuner.isSettled());
    }

    void tunerStaysSmallWhenOneConnectionFillsTheLink()
    {
        // No per-connection limit: more connections only add overhead (goodput drops slowly).
        ConcurrencyTuner tuner({4, 1, 36});
        const int level = settle(tuner, [](int n) { return 24e6 * (1.0 - 0.02 * n); });
        QVERIFY2(level <= 8, qPrintable(QString::number(level)));
    }

    void tunerNeverPassesTheCap()
    {
        ConcurrencyTuner tuner({4, 1, 6});
        QCOMPARE(settle(tuner, [](int n) { return 1e6 * n; }), 6);
    }

    void tunerBacksOffOnErrors()
    {
        ConcurrencyTuner tuner({8, 1, 16});
        tuner.update(0, 0, 0);
        QCOMPARE(tuner.update(2000, 1000000, 3), 4);
    }

    void scorerGivesSlowEndpointsFewerChunks()
    {
        EndpointScorer scorer(3);
        QCOMPARE(scorer.weight(2), EndpointScorer::Scale); // unmeasured: full chance
        for (int i = 0; i < 5; ++i) {
            scorer.recordSuccess(0, 8000000, 100); // 80 MB/s
            scorer.recordSuccess(1, 8000000, 100);
            scorer.recordSuccess(2, 8000000, 1000); // 8 MB/s
        }
        QCOMPARE(scorer.weight(0), EndpointScorer::Scale);
        QVERIFY(scorer.weight(2) <= EndpointScorer::Scale / 8);

        // Through the pool, the slow endpoint now gets about a tenth of the chunks.
        QList<Endpoint> endpoints(3);
        EndpointPool pool(endpoints);
        for (int e = 0; e < 3; ++e)
            pool.setScore(e, scorer.weight(e));
        QList<int> counts(3, 0);
        for (int i = 0; i < 2100; ++i) {
            const auto lease = pool.acquire();
            ++counts[lease->endpoint];
            pool.release(*lease);
        }
        QVERIFY2(counts.at(2) < counts.at(0) / 5,
                 qPrintable(QStringLiteral("%1 %2").arg(counts.at(0)).arg(counts.at(2))));
    }

    void scorerPunishesErrors()
    {
        EndpointScorer scorer(2);
        for (int i = 0; i < 5; ++i) {
            scorer.recordSuccess(0, 1000000, 100);
            scorer.recordSuccess(1, 1000000, 100);
            scorer.recordFailure(1);
        }
        QVERIFY(scorer.weight(1) < scorer.weight(0));
        QVERIFY(scorer.errorRate(1) > 0.5);
    }
};

QTEST_GUILESS_MAIN(TestTuning)
#include "tst_tuning.moc"
