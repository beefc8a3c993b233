// The link model without sockets: rate and size parsing, the token bucket and the delay line,
// all with time passed in.
#include "DelayLine.h"
#include "LinkOptions.h"
#include "TokenBucket.h"

#include <QTest>
#include <cstring>

using namespace multilane::linksim;
using namespace std::chrono_literals;

class TestLinkModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesRatesInDecimalUnits();
    void parsesRoutesAndOptions();
    void tokenBucketKeepsItsRate();
    void tokenBucketSaysWhenToWake();
    void delayLineHoldsBytesUntilDue();
    void delayLineWrapsInOrder();
};

void TestLinkModel::parsesRatesInDecimalUnits()
{
    QCOMPARE(parseRate("2MB/s").value(), 2e6);
    QCOMPARE(parseRate("500KB/s").value(), 5e5);
    QCOMPARE(parseRate("16Mbit/s").value(), 2e6);
    QCOMPARE(parseRate("1MiB/s").value(), 1048576.0);
    QCOMPARE(parseRate("1.5GB").value(), 1.5e9);
    QCOMPARE(parseRate("0").value(), 0.0);
    QVERIFY(!parseRate("fast"));
    QVERIFY(!parseRate("2XB/s"));
    QVERIFY(!parseRate("-1MB/s"));
    QCOMPARE(parseSize("4MiB").value(), std::size_t(4 * 1024 * 1024));
    QCOMPARE(parseSize("65536").value(), std::size_t(65536));
    QVERIFY(!parseSize("0"));
    QVERIFY(!parseSize("8Mbit"));
}

void TestLinkModel::parsesRoutesAndOptions()
{
    const auto route = parseRoute("127.0.0.1:0=localhost:9101");
    QVERIFY(route);
    QCOMPARE(route->listenPort, 0);
    QCOMPARE(route->targetHost, std::string("localhost"));
    QCOMPARE(route->targetPort, 9101);
    QCOMPARE(parseRoute("9201=[::1]:9101")->targetHost, std::string("::1"));
    QVERIFY(!parseRoute("127.0.0.1:0"));
    QVERIFY(!parseRoute("0=host"));

    const ParsedOptions parsed = parseArguments({"--listen", "0=127.0.0.1:1", "--per-connection-rate=2MB/s",
                                                 "--total-rate", "24MB/s", "--rtt", "40", "--buffer", "1MB"});
    QVERIFY2(parsed.error.empty(), parsed.error.c_str());
    QCOMPARE(parsed.options.perConnectionRate, 2e6);
    QCOMPARE(parsed.options.totalRate, 24e6);
    QVERIFY(parsed.options.rtt == 40ms);
    QCOMPARE(parsed.options.bufferBytes, std::size_t(1000000));
    QVERIFY(!parseArguments({"--rtt", "40"}).error.empty()); // no --listen
    QVERIFY(!parseArguments({"--listen", "0=h:1", "--bogus"}).error.empty());
}

void TestLinkModel::tokenBucketKeepsItsRate()
{
    const TimePoint start{};
    TokenBucket bucket(2e6, TokenBucket::defaultBurst(2e6), start);
    QCOMPARE(bucket.burst(), 20000.0); // 10 ms worth
    // Drain it every millisecond for ten simulated seconds.
    std::size_t passed = 0;
    for (int ms = 0; ms <= 10000; ++ms) {
        const TimePoint now = start + std::chrono::milliseconds(ms);
        const std::size_t take = bucket.available(now);
        bucket.consume(take);
        passed += take;
    }
    QVERIFY(passed >= 20'000'000 - 2 && passed <= 20'000'000 + 20'000);
}

void TestLinkModel::tokenBucketSaysWhenToWake()
{
    const TimePoint start{};
    TokenBucket bucket(1e6, 10000, start);
    bucket.consume(bucket.available(start));
    const TimePoint ready = bucket.readyAt(5000, start);
    QVERIFY(ready >= start + 5ms && ready <= start + 5ms + 10us);
    QVERIFY(bucket.available(ready) >= 5000);
    // Never more than the burst, however long it was idle.
    QCOMPARE(bucket.available(start + 10s), std::size_t(10000));
}

void TestLinkModel::delayLineHoldsBytesUntilDue()
{
    const TimePoint start{};
    DelayLine line(100);
    std::span<char> room = line.freeSpan();
    QCOMPARE(room.size(), std::size_t(100));
    std::memcpy(room.data(), "abc", 3);
    line.commit(3, start + 50ms);
    QVERIFY(line.releasedSpan(start + 49ms).empty());
    QCOMPARE(line.nextRelease().value(), start + 50ms);
    const auto due = line.releasedSpan(start + 50ms);
    QCOMPARE(std::string(due.data(), due.size()), std::string("abc"));
    line.consume(3);
    QVERIFY(line.empty());
    QVERIFY(!line.nextRelease());
}

void TestLinkModel::delayLineWrapsInOrder()
{
    const TimePoint start{};
    DelayLine line(8);
    std::memcpy(line.freeSpan().data(), "012345", 6);
    line.commit(6, start);
    line.consume(4); // "45" left at offsets 4..5
    std::span<char> room = line.freeSpan();
    QCOMPARE(room.size(), std::size_t(2)); // up to the end of the array
    std::memcpy(room.data(), "67", 2);
    line.commit(2, start + 1ms);
    room = line.freeSpan(); // the wrapped part
    QCOMPARE(room.size(), std::size_t(4));
    std::memcpy(room.data(), "89", 2);
    line.commit(2, start + 2ms);
    QCOMPARE(line.space(), std::size_t(2));
    std::string out;
    for (TimePoint now = start; !line.empty(); now += 1ms) {
        for (auto due = line.releasedSpan(now); !due.empty(); due = line.releasedSpan(now)) {
            out.append(due.data(), due.size());
            line.consume(due.size());
        }
    }
    QCOMPARE(out, std::string("456789"));
}

QTEST_GUILESS_MAIN(TestLinkModel)
#include "tst_linkmodel.moc"
