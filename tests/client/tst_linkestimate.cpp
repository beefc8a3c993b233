#include "LinkEstimate.h"
#include "RateLimiter.h"

#include <QTest>

using namespace multilane;

class TestLinkEstimate : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void samplerLeavesOutWarmUp()
    {
        ThroughputSampler sampler(300);
        // Slow start: 1 MB/s for the first 300 ms, then a steady 100 MB/s.
        qint64 total = 0;
        for (qint64 t = 0; t <= 2000; t += 20) {
            total += t < 300 ? 20 * 1000 : 20 * 100000;
            sampler.addSample(t, total);
        }
        QVERIFY(qAbs(sampler.bytesPerSecond() - 100e6) < 1e6);
        QVERIFY(sampler.measuredMs() >= 1600);
    }

    void samplerNeedsData()
    {
        ThroughputSampler sampler(300);
        QCOMPARE(sampler.bytesPerSecond(), 0.0);
        sampler.addSample(0, 0);
        sampler.addSample(100, 0);
        QCOMPARE(sampler.bytesPerSecond(), 0.0);
    }

    void chunkSizeRule_data()
    {
        QTest::addColumn<double>("rate");
        QTest::addColumn<double>("rttMs");
        QTest::addColumn<int>("connections");
        QTest::addColumn<qint64>("chunk");
        // 24 MB/s over 12 connections = 2 MB/s each: 2 s is 4 MB -> 2 MiB (power of two below).
        QTest::newRow("shaped uplink") << 24e6 << 40.0 << 12 << qint64(2 * 1024 * 1024);
        // A long round trip pushes chunks up: 2 MB/s x 0.5 s / 5 % = 20 MB -> 16 MiB.
        QTest::newRow("satellite") << 24e6 << 500.0 << 12 << qint64(16 * 1024 * 1024);
        QTest::newRow("loopback capped") << 2e9 << 0.2 << 12 << ChunkSizer::MaxChunk;
        QTest::newRow("dial-up floor") << 10e3 << 100.0 << 4 << ChunkSizer::MinChunk;
        QTest::newRow("nothing measured") << 0.0 << 0.0 << 4 << ChunkSizer::MinChunk;
    }
    void chunkSizeRule()
    {
        QFETCH(double, rate);
        QFETCH(double, rttMs);
        QFETCH(int, connections);
        QFETCH(qint64, chunk);
        const LinkEstimate estimate = ChunkSizer::choose(rate, rttMs, connections);
        QCOMPARE(estimate.chunkSize, chunk);
        QVERIFY(!estimate.reason.isEmpty());
    }

    void limiterHoldsTheAverage()
    {
        // 1 MB/s with 256 KiB requests over 10 simulated seconds: started bytes stay within a
        // couple of percent of 10 MB.
        RateLimiter limiter(1e6);
        const qint64 chunk = limiter.maxChunkFor();
        QVERIFY(chunk <= 250000);
        qint64 started = 0;
        for (qint64 t = 0; t <= 10000; ++t) {
            while (limiter.mayStart(t)) {
                limiter.consume(chunk, t);
                started += chunk;
            }
        }
        QVERIFY2(qAbs(double(started) - 10e6) / 10e6 < 0.05, qPrintable(QString::number(started)));
    }

    void limiterWaitsAndDoesNotBankIdleTime()
    {
        RateLimiter limiter(1e6);
        QVERIFY(limiter.mayStart(0));
        limiter.consume(1000000, 0); // one big request: a second's worth of debt
        QVERIFY(!limiter.mayStart(10));
        const qint64 wait = limiter.msUntilAllowed(10);
        QVERIFY(wait > 700 && wait <= 1000);
        QVERIFY(limiter.mayStart(10 + wait));
        // An hour idle banks no more than a quarter second of sending.
        limiter.mayStart(3600000);
        limiter.consume(250000, 3600000);
        QVERIFY(!limiter.mayStart(3600000));
    }

    void unlimitedNeverWaits()
    {
        RateLimiter limiter;
        QVERIFY(!limiter.isLimited());
        limiter.consume(1LL << 40, 0);
        QVERIFY(limiter.mayStart(0));
        QCOMPARE(limiter.msUntilAllowed(0), 0);
    }
};

QTEST_GUILESS_MAIN(TestLinkEstimate)
#include "tst_linkestimate.moc"
