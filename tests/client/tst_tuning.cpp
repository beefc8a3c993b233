#include "ConcurrencyTuner.h"
#include "EndpointPool.h"
#include "EndpointScorer.h"
#include "SpeedTest.h"

#include <QTest>
#include <climits>
#include <functional>

using namespace multilane;

// A link model for the tuner: goodput as a function of the number of connections.
static int settle(ConcurrencyTuner &tuner, const std::function<double(int)> &goodput, qint64 seconds = 60)
{
    qint64 bytes = 0;
    for (qint64 t = 0; t <= seconds * 1000; t += 100) {
        bytes += qint64(goodput(tuner.level()) / 10);
        tuner.update({t, bytes, 0});
    }
    return tuner.level();
}

// Runs a tuner (starting at 12 of at most 24) on a link of 2 MB/s per connection and 24 MB/s in
// all for 10 s; from 4 s on, only `workAfterDrop` requests can be in flight and the link carries
// `linkAfterDrop`. Returns the lowest level used after the drop.
static int lowestLevelAfterDrop(ConcurrencyTuner::Options options, int workAfterDrop, double linkAfterDrop)
{
    options.start = 12;
    options.minimum = 1;
    options.maximum = 24;
    ConcurrencyTuner tuner(options);
    qint64 bytes = 0;
    qint64 busySlotMs = 0;
    int lowest = tuner.level();
    for (qint64 t = 0; t <= 10000; t += 50) {
        const bool dropped = t >= 4000;
        const int inFlight = std::min(tuner.level(), dropped ? workAfterDrop : INT_MAX);
        bytes += qint64(std::min(2e6 * inFlight, dropped ? linkAfterDrop : 24e6) / 20);
        busySlotMs += inFlight * 50;
        const int level = tuner.update({t, bytes, 0, busySlotMs});
        if (dropped)
            lowest = std::min(lowest, level);
    }
    return lowest;
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
        tuner.update({0, 0, 0});
        QCOMPARE(tuner.update({2000, 1000000, 3}), 4);
    }

    void tunerHoldsWhenTheWorkRunsOut()
    {
        // 2 MB/s per connection, 24 MB/s link: the tuner tries 24 connections, finds no gain and
        // goes back to 12. Then, at 4 s, only 4 requests are left (the last chunks of the upload)
        // and the rate drops to a third. That is the work running out, not too many connections:
        // the level must stay, or the last chunks queue behind fewer connections.
        QCOMPARE(lowestLevelAfterDrop({}, 4, 24e6), 12);
        // The control: judged without looking at how busy the connections were, the same run
        // steps back. (The scenario really is the one that used to cut the level.)
        ConcurrencyTuner::Options blind;
        blind.busyToJudge = 0;
        QVERIFY(lowestLevelAfterDrop(blind, 4, 24e6) < 12);
        // The same drop with every connection busy is the link getting worse: acted on.
        QVERIFY(lowestLevelAfterDrop({}, 1000, 8e6) < 12);
    }

    void speedTestSpreadsEachRequestOverItsLifetime()
    {
        // 4 connections at 1 MB/s each, 1 MB requests back to back, all started together at 0:
        // acknowledgements at 1000, 2000, 3000 ms. A window from 900 to 2900 ms sees 4 MB/s, not
        // the 8 requests acknowledged inside it (8 MB in 2 s) nor 4.
        QList<SpeedTest::Span> spans;
        for (int connection = 0; connection < 4; ++connection) {
            for (qint64 start = 0; start < 3000; start += 1000)
                spans.append({start, start + 1000, 1000000});
        }
        QCOMPARE(SpeedTest::rateOver(spans, 900, 2900), 4e6);
        QCOMPARE(SpeedTest::rateOver(spans, 1000, 3000), 4e6);
        QCOMPARE(SpeedTest::rateOver(spans, 3000, 4000), 0.0);
        QCOMPARE(SpeedTest::rateOver(spans, 2000, 2000), 0.0);
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
