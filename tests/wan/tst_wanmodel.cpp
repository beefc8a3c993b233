// wanemu's path model without sockets or namespaces: option parsing, and what the model does
// to packets (delay, rate, drop-tail queue, random loss, per-flow shaper) with time passed in.
#include "DirectionModel.h"
#include "IpHeader.h"
#include "WanOptions.h"

#include <QTest>

using namespace multilane::wanemu;
using namespace std::chrono_literals;

namespace {

PacketInfo packet(std::uint64_t token, std::uint32_t length = 1000, std::uint64_t flow = 1)
{
    return PacketInfo{token, length, flow};
}

// Drives the model until it holds nothing; returns each token's release time.
std::map<std::uint64_t, Nanoseconds> drain(DirectionModel &model,
                                           std::vector<std::uint64_t> *dropped = nullptr)
{
    std::map<std::uint64_t, Nanoseconds> released;
    std::vector<std::uint64_t> out, lost;
    while (const auto next = model.nextEvent()) {
        out.clear();
        model.due(*next, out, lost);
        for (const std::uint64_t token : out)
            released[token] = *next;
    }
    if (dropped)
        *dropped = lost;
    return released;
}

} // namespace

class TestWanModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesDurationsProbabilitiesAndQueues();
    void parsesDirectionOptions();
    void delaysEveryPacketByTheOneWayDelay();
    void serialisesAtTheRateIncludingOverhead();
    void dropTailInPackets();
    void dropTailInTimeCountsQueueingDelay();
    void randomLossFollowsTheSeed();
    void perFlowShaperCapsEachFlow();
    void readsIpv4LengthAndFlow();
};

void TestWanModel::parsesDurationsProbabilitiesAndQueues()
{
    QVERIFY(parseDuration("50ms") == 50ms);
    QVERIFY(parseDuration("40") == 40ms);
    QVERIFY(parseDuration("1.5s") == 1500ms);
    QVERIFY(parseDuration("200us") == 200us);
    QVERIFY(!parseDuration("5 min"));
    QVERIFY(!parseDuration("-1ms"));
    QCOMPARE(parseProbability("0.1%").value(), 0.001);
    QCOMPARE(parseProbability("0.25").value(), 0.25);
    QVERIFY(!parseProbability("150%"));
    QVERIFY(!parseProbability("lots"));
    QCOMPARE(parseQueueLimit("100p")->packets, std::size_t(100));
    QCOMPARE(parseQueueLimit("64pkt")->packets, std::size_t(64));
    QVERIFY(parseQueueLimit("50ms")->duration == 50ms);
    QVERIFY(!parseQueueLimit("0p"));
    QVERIFY(!parseQueueLimit("0ms"));
    QVERIFY(!parseQueueLimit("50")); // a bare number could mean packets or ms: refused
}

void TestWanModel::parsesDirectionOptions()
{
    const ParsedOptions parsed = parseArguments(
        {"--delay", "50ms", "--up-rate", "20MB/s", "--up-queue=100p", "--loss", "1%", "--down-loss", "0",
         "--backend", "tun", "--seed", "42", "--sysctl", "net.ipv4.tcp_congestion_control=cubic"});
    QVERIFY(parseArguments({}).options.backend == Backend::Tun);
    QVERIFY(parseArguments({"--backend", "nfqueue"}).options.backend == Backend::Nfqueue);
    QVERIFY(!parseArguments({"--backend", "netem"}).error.empty());
    QVERIFY2(parsed.error.empty(), parsed.error.c_str());
    const WanOptions &o = parsed.options;
    QVERIFY(o.up.delay == 50ms && o.down.delay == 50ms);
    QCOMPARE(o.up.rate, 20e6);
    QCOMPARE(o.down.rate, 0.0);
    QCOMPARE(o.up.queue.packets, std::size_t(100));
    QCOMPARE(o.up.loss, 0.01);
    QCOMPARE(o.down.loss, 0.0);
    QVERIFY(o.backend == Backend::Tun);
    QCOMPARE(o.seed, std::uint64_t(42));
    QVERIFY(o.seedGiven);
    QCOMPARE(o.sysctls.size(), std::size_t(1));
    QVERIFY(!parseArguments({"--rate", "fast"}).error.empty());
    QVERIFY(!parseArguments({"--up-bogus", "1"}).error.empty());
    QVERIFY(!parseArguments({"--delay"}).error.empty());
    QVERIFY(!parseArguments({"--sysctl", "../../etc/passwd=1"}).error.empty());
    QVERIFY(parseArguments({"--rate", "fast"}).error.find("--rate needs") != std::string::npos);
}

void TestWanModel::delaysEveryPacketByTheOneWayDelay()
{
    DirectionConfig config;
    config.delay = 30ms;
    DirectionModel model(config, 1);
    QVERIFY(model.arrive(packet(1), 100ms) == DropCause::None);
    QVERIFY(model.arrive(packet(2), 110ms) == DropCause::None);
    std::vector<std::uint64_t> released, dropped;
    model.due(129ms, released, dropped);
    QVERIFY(released.empty()); // not a moment early
    const auto times = drain(model);
    QVERIFY(times.at(1) == 130ms);
    QVERIFY(times.at(2) == 140ms);
    QCOMPARE(model.total().deliveredPackets, std::uint64_t(2));
}

void TestWanModel::serialisesAtTheRateIncludingOverhead()
{
    DirectionConfig config;
    config.delay = 10ms;
    config.rate = 1e6; // 1000 wire bytes per ms
    config.overhead = 250;
    config.queue = QueueLimit{1000, 0ns};
    DirectionModel model(config, 1);
    for (std::uint64_t token = 0; token < 4; ++token)
        QVERIFY(model.arrive(packet(token, 750), 0ms) == DropCause::None); // 1000 bytes on the wire
    const auto times = drain(model);
    for (std::uint64_t token = 0; token < 4; ++token)
        QVERIFY(times.at(token) == Nanoseconds(std::chrono::milliseconds(10 + token + 1)));
    QVERIFY(model.total().queuePeakDelay == 4ms); // the last one waited 3 ms and took 1 ms
    QCOMPARE(model.total().queuePeakPackets, std::uint64_t(4));
}

void TestWanModel::dropTailInPackets()
{
    DirectionConfig config;
    config.rate = 1e6;
    config.queue = QueueLimit{10, 0ns};
    DirectionModel model(config, 1);
    int refused = 0;
    for (std::uint64_t token = 0; token < 20; ++token)
        refused += model.arrive(packet(token), 0ms) == DropCause::QueueFull;
    QCOMPARE(refused, 10);
    QCOMPARE(model.total().queueDrops, std::uint64_t(10));
    // Once the queue has drained a packet's worth, there is room for one more.
    QVERIFY(model.arrive(packet(99), 1ms) == DropCause::None);
    QVERIFY(model.arrive(packet(100), 1ms) == DropCause::QueueFull);
}

void TestWanModel::dropTailInTimeCountsQueueingDelay()
{
    DirectionConfig config;
    config.rate = 1e6;
    config.queue = QueueLimit{0, 5ms};
    config.delay = 20ms;
    DirectionModel model(config, 1);
    int accepted = 0;
    for (std::uint64_t token = 0; token < 10; ++token)
        accepted += model.arrive(packet(token), 0ms) == DropCause::None;
    QCOMPARE(accepted, 5);
    const auto times = drain(model);
    QVERIFY(times.at(4) == 25ms); // 5 ms at the bottleneck + the 20 ms delay
    QVERIFY(model.total().queuePeakDelay == 5ms);
}

void TestWanModel::randomLossFollowsTheSeed()
{
    DirectionConfig config;
    config.loss = 0.1;
    auto lossPattern = [&](std::uint64_t seed) {
        DirectionModel model(config, seed);
        std::vector<bool> pattern;
        for (std::uint64_t token = 0; token < 100000; ++token)
            pattern.push_back(model.arrive(packet(token), 0ms) == DropCause::Loss);
        return pattern;
    };
    const auto first = lossPattern(7);
    const auto lost = std::count(first.begin(), first.end(), true);
    QVERIFY2(lost > 9000 && lost < 11000, std::to_string(lost).c_str()); // 10000 +- 10 sigma
    QVERIFY(lossPattern(7) == first);
    QVERIFY(lossPattern(8) != first);
    config.loss = 0;
    const auto none = lossPattern(7);
    QCOMPARE(std::count(none.begin(), none.end(), true), 0);
}

void TestWanModel::perFlowShaperCapsEachFlow()
{
    DirectionConfig config;
    config.rate = 10e6;
    config.queue = QueueLimit{1000, 0ns};
    config.flowRate = 1e6; // a 1000-byte packet per ms and flow
    config.flowQueue = QueueLimit{0, 3ms};
    DirectionModel model(config, 1);
    int refused = 0;
    for (std::uint64_t i = 0; i < 5; ++i) {
        refused += model.arrive(packet(i, 1000, 1), 0ms) == DropCause::FlowCap;
        refused += model.arrive(packet(100 + i, 1000, 2), 0ms) == DropCause::FlowCap;
    }
    QCOMPARE(refused, 4); // 3 ms of queue: packets 0..2 of each flow, the 4th and 5th refused
    QCOMPARE(model.total().flowDrops, std::uint64_t(4));
    QCOMPARE(model.total().flows.size(), std::size_t(2));
    const auto times = drain(model);
    QCOMPARE(times.size(), std::size_t(6));
    // Each flow leaves its shaper once per ms; the bottleneck (0.1 ms a packet) adds little.
    QVERIFY(times.at(2) >= 2ms && times.at(2) < 2500us);
    QVERIFY(times.at(102) >= 2ms && times.at(102) < 2500us);
}

void TestWanModel::readsIpv4LengthAndFlow()
{
    std::uint8_t bytes[40] = {0x45, 0,   0x05, 0xdc, 0,  0,   0, 0, 64,   6,    0,    0,
                              10,   201, 0,    1,    10, 201, 0, 2, 0x9c, 0x40, 0x23, 0x8d};
    const auto facts = readIpv4(bytes, sizeof bytes);
    QVERIFY(facts);
    QCOMPARE(facts->length, std::uint32_t(1500));
    bytes[21] = 0x41; // another source port: another flow
    QVERIFY(readIpv4(bytes, sizeof bytes)->flow != facts->flow);
    bytes[0] = 0x60; // IPv6
    QVERIFY(!readIpv4(bytes, sizeof bytes));
    QVERIFY(!readIpv4(bytes, 10));
}

QTEST_APPLESS_MAIN(TestWanModel)
#include "tst_wanmodel.moc"
