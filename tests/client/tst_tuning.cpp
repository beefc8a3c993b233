#include "ConcurrencyTuner.h"
#include "EndpointPool.h"
#include "EndpointScorer.h"
#include "SpeedTest.h"

#include <QRandomGenerator>
#include <QTest>
#include <climits>
#include <cmath>
#include <functional>

using namespace multilane;

// A link as the tuner sees it: each connection carries at most `perConnection` bytes/s, all of
// them together at most `uplink`; a new connection carries nothing for its first 1.5 round trips
// (handshake, first request). With `queueMs`, a bottleneck queue of that depth fills as soon as the
// connections offer more than the uplink, and the round trip grows with it, as on real TCP.
struct LinkModel {
    double perConnection = 2e6;
    double uplink = 24e6;
    double rttMs = 40;
    double queueMs = 0;
    bool slowStart = false; // real TCP: a new connection doubles its rate each round trip from 10 segments
    // Real TCP's windows: as above, until the connections together fill the uplink; from then on
    // they share it, and each one's rate grows by a segment a round trip (congestion avoidance).
    // So connections left after the level goes down carry their small share until they grow.
    bool sharedWindows = false;
    int workLimit = 1 << 30; // requests that can be in flight at most (the work left)
    int cap = 1 << 30;       // connections the receivers allow
    qint64 startDelayMs = 0; // nothing moves before this: the upload's own start (a create, the first chunks)
    // A new connection carries nothing for at least this long (beyond 1.5 round trips): a proxy
    // in front that connects onwards, the first chunks' checksums still being made.
    qint64 newConnectionDelayMs = 0;
    // A lossy path: a new connection carries `earlyFactor` times its share until its first
    // losses, `earlyMs` after it starts (slow start runs past the rate loss will hold it to).
    double earlyFactor = 1;
    qint64 earlyMs = 0;
    // Behind a proxy next door (an emulated link): the connections' own round trip is the first
    // hop's, a floor of 0.05 ms that the machine's load (the bytes moved, up to the uplink) pushes
    // up to this, whatever the path does.
    // An endpoint check measured the path's round trip end to end unless `pathChecked` is false.
    double firstHopMaxMs = 0;
    bool pathChecked = true;
    // A busy machine (or an emulator starved of CPU): each 100 ms carries between 1 - noise and
    // 1 + noise of the rate, drawn from `noiseSeed`; the mean is the link's.
    double noise = 0;
    quint32 noiseSeed = 1;
    // A connection above a lower level is not gone at once: it finishes what was already sent on
    // it (a chunk and the one behind it), carrying at its cap for this long.
    qint64 drainMs = 0;
    // A shaper's bucket that starts full: the uplink lets `burstFactor` times its rate through
    // for the first `burstMs`, so the first windows overstate it.
    double burstFactor = 1;
    qint64 burstMs = 0;
    // Real TCP through a bottleneck with random loss: no sharp knee. The closer the connections
    // come to filling it, the more each loses to the queue's drops as well, so goodput nears the
    // uplink only slowly: offered x (1 + (offered / uplink)^k)^(-1/k) with this k (0: a sharp
    // min(offered, uplink)). On path 1 of the WAN benchmark 24, 36 and 48 connections carried
    // 0.86-0.89, 0.96 and 1.0 of it in one run; k = 2 is as soft or softer (0.86, 0.93, 0.96).
    double softKnee = 0;

    double carried(double offered, double limit) const
    {
        if (softKnee <= 0 || offered <= 0)
            return std::min(offered, limit);
        return offered * std::pow(1 + std::pow(offered / limit, softKnee), -1 / softKnee);
    }

    struct Run {
        qint64 firstTo90Ms = -1; // from the start, the first 500 ms window at 90 % of the uplink
        int finalLevel = 0;
        double steadyMin = 0, steadyMax = 0; // rate over 500 ms windows in the last half
        double steadyMean = 0;               // and over the whole last half
        int maxLevel = 0;
        int firstSettledLevel = 0, maxLevelOnceSettled = 0, minLevelOnceSettled = 0;
        QString reason;
        int levelBeforeErrors = 0, levelAfterErrors = 0;
        QString reasonAfterErrors;

        QString summary() const
        {
            return QStringLiteral("settled at %1 (then %2-%3), now %4; steady %5-%6 MB/s, mean %7")
                .arg(firstSettledLevel)
                .arg(minLevelOnceSettled)
                .arg(maxLevelOnceSettled)
                .arg(finalLevel)
                .arg(steadyMin / 1e6, 0, 'f', 1)
                .arg(steadyMax / 1e6, 0, 'f', 1)
                .arg(steadyMean / 1e6, 0, 'f', 1);
        }
    };

    double rateAt(int connections) const { return std::min(connections * perConnection, uplink); }

    Run run(ConcurrencyTuner &tuner, qint64 durationMs, int errorsAtMs = -1, bool overload = false) const
    {
        Run result;
        if (firstHopMaxMs > 0 && pathChecked)
            tuner.setRoundTrip(rttMs);
        QList<qint64> opened(tuner.level(), -100000); // connections there from the start
        for (qint64 &t : opened)
            t = 0;
        double bytes = 0;
        qint64 busy = 0;
        int errors = 0, overloads = 0;
        QList<double> history;              // bytes at each 10 ms step
        QList<double> rates(opened.size()); // with sharedWindows: each connection's own
        bool avoiding = false;              // with sharedWindows: slow start is over
        QRandomGenerator noiseRandom(noiseSeed);
        double noiseFactor = 1;
        QList<qint64> drainingUntil; // connections above the level, still carrying
        for (qint64 t = 0; t <= durationMs; t += 10) {
            const int level = tuner.level();
            while (opened.size() < level) {
                opened.append(t);
                rates.append(0);
            }
            while (opened.size() > level) {
                opened.removeLast();
                rates.removeLast();
                if (drainMs > 0)
                    drainingUntil.append(t + drainMs);
            }
            drainingUntil.removeIf([t](qint64 until) { return until <= t; });
            // Each connection's share: nothing for 1.5 round trips (handshake, first request),
            // then its cap, or with slow start a rate doubling each round trip up to it.
            double offeredRate = 0;
            int carrying = 0;
            const double silentMs = std::max(1.5 * rttMs, double(newConnectionDelayMs));
            for (qint64 at : opened) {
                const double age = double(t - at) - silentMs;
                if (age < 0 || carrying >= workLimit)
                    continue;
                ++carrying;
                const double start = 10 * 1448 * 1000.0 / rttMs;
                const double cap = age < double(earlyMs) ? earlyFactor * perConnection : perConnection;
                offeredRate += slowStart ? std::min(cap, start * std::exp2(age / rttMs)) : cap;
            }
            offeredRate += double(drainingUntil.size()) * perConnection;
            carrying += int(drainingUntil.size());
            if (sharedWindows) {
                offeredRate = 0;
                for (qsizetype i = 0; i < opened.size(); ++i) {
                    if (double(t - opened.at(i)) < 1.5 * rttMs || i >= workLimit)
                        continue;
                    double &rate = rates[i];
                    const double start = 10 * 1448 * 1000.0 / rttMs;
                    if (rate == 0 || !avoiding)
                        rate = std::max(start, rate * std::exp2(10 / rttMs)); // doubles each round trip
                    else
                        rate += 1448 * 1000.0 / rttMs * (10 / rttMs); // one segment more each round trip
                    rate = std::min(rate, perConnection);
                    offeredRate += rate;
                }
                if (offeredRate > uplink) {
                    avoiding = true;
                    for (double &rate : rates)
                        rate *= uplink / offeredRate;
                    offeredRate = uplink;
                }
            }
            if (t < startDelayMs)
                offeredRate = 0;
            if (t % 100 == 0)
                noiseFactor = 1 + noise * (2 * noiseRandom.generateDouble() - 1);
            const double uplinkNow = t < burstMs ? burstFactor * uplink : uplink;
            bytes += carried(offeredRate, uplinkNow) / 100 * noiseFactor;
            busy += std::min(level, workLimit) * 10;
            history.append(bytes);
            // What the connections offer (new ones on a lossy path more than their share) beyond
            // the uplink waits in the queue.
            const double offered = std::max(carrying * perConnection, offeredRate);
            const double queue =
                queueMs > 0 && offered > uplink ? std::min(queueMs, (offered / uplink - 1) * 4 * rttMs) : 0;
            if (t == errorsAtMs) {
                errors += 3;
                overloads += overload ? 3 : 0;
            }
            if (t % 100 == 0) {
                if (t == errorsAtMs)
                    result.levelBeforeErrors = tuner.level();
                if (firstHopMaxMs > 0) {
                    const double firstHop = 0.05 + firstHopMaxMs * std::min(offeredRate, uplink) / uplink;
                    tuner.update({t, qint64(bytes), errors, busy, overloads, firstHop, 0.05});
                } else {
                    tuner.update(
                        {t, qint64(bytes), errors, busy, overloads, rttMs + queue, slowStart ? rttMs : 0});
                }
                if (qEnvironmentVariableIsSet("TRACE_TUNER") && tuner.level() != level)
                    qInfo("%lld ms: %d -> %d rate %.1f %s", t, level, tuner.level(),
                          history.size() > 50 ? (history.last() - history.at(history.size() - 51)) * 2 / 1e6
                                              : 0.0,
                          qPrintable(tuner.reason()));
                if (tuner.isSettled() && result.firstSettledLevel == 0)
                    result.firstSettledLevel = tuner.level();
                if (t == errorsAtMs) {
                    result.levelAfterErrors = tuner.level();
                    result.reasonAfterErrors = tuner.reason();
                }
            }
            result.maxLevel = std::max(result.maxLevel, tuner.level());
            if (result.firstSettledLevel > 0) {
                result.maxLevelOnceSettled = std::max(result.maxLevelOnceSettled, tuner.level());
                result.minLevelOnceSettled = result.minLevelOnceSettled == 0
                                                 ? tuner.level()
                                                 : std::min(result.minLevelOnceSettled, tuner.level());
            }
        }
        for (qsizetype i = 50; i < history.size(); ++i) {
            const double rate = (history.at(i) - history.at(i - 50)) * 2; // bytes/s over 500 ms
            if (result.firstTo90Ms < 0 &&
                rate >= 0.9 * std::min(uplink, std::min(workLimit, cap) * perConnection))
                result.firstTo90Ms = (i - 50) * 10;
            if (i >= history.size() / 2) {
                result.steadyMin = result.steadyMin == 0 ? rate : std::min(result.steadyMin, rate);
                result.steadyMax = std::max(result.steadyMax, rate);
            }
        }
        const qsizetype half = history.size() / 2;
        result.steadyMean = (history.last() - history.at(half)) * 100 / double(history.size() - 1 - half);
        result.finalLevel = tuner.level();
        result.reason = tuner.reason();
        return result;
    }
};

// Path 2 of the WAN benchmark: 0.25 MB/s a connection once losses set in, three times that for
// the first `earlyMs`, 22 MB/s, 99 ms, a 157 ms queue.
static LinkModel lossyDeepPath(qint64 earlyMs)
{
    LinkModel link{0.25e6, 22e6, 99};
    link.queueMs = 157;
    link.slowStart = true;
    link.earlyFactor = 3;
    link.earlyMs = earlyMs;
    return link;
}

// Real TCP on a lossy path whose goodput nears the uplink slowly (`softKnee`): a new connection
// carries `earlyFactor` times its share for its first `earlyMs` (slow start running past the rate
// loss then holds it to).
static LinkModel lossyPath(double perConnection, double uplink, double rttMs, double queueMs, double softKnee,
                           double earlyFactor, qint64 earlyMs)
{
    LinkModel link{perConnection, uplink, rttMs, queueMs};
    link.slowStart = true;
    link.softKnee = softKnee;
    link.earlyFactor = earlyFactor;
    link.earlyMs = earlyMs;
    return link;
}

static ConcurrencyTuner::Options tunerFor(int start, int maximum, double rttMs = 50)
{
    ConcurrencyTuner::Options options;
    options.start = start;
    options.minimum = 1;
    options.maximum = maximum;
    options.initialRttMs = rttMs;
    return options;
}

// Runs a tuner (starting at 12 of at most 24) on a link of 2 MB/s per connection and 24 MB/s in
// all for 10 s; from 4 s on, only `workAfterDrop` requests can be in flight and the link carries
// `linkAfterDrop`. Returns whether the level moved after the drop.
static bool levelMovesAfterDrop(ConcurrencyTuner::Options options, int workAfterDrop, double linkAfterDrop)
{
    options.start = 12;
    options.minimum = 1;
    options.maximum = 24;
    ConcurrencyTuner tuner(options);
    qint64 bytes = 0;
    qint64 busySlotMs = 0;
    int atDrop = -1;
    bool moved = false;
    for (qint64 t = 0; t <= 10000; t += 50) {
        const bool dropped = t >= 4000;
        const int inFlight = std::min(tuner.level(), dropped ? workAfterDrop : INT_MAX);
        bytes += qint64(std::min(2e6 * inFlight, dropped ? linkAfterDrop : 24e6) / 20);
        busySlotMs += inFlight * 50;
        if (dropped && atDrop < 0)
            atDrop = tuner.level();
        const int level = tuner.update({t, bytes, 0, busySlotMs});
        moved = moved || (dropped && level != atDrop);
    }
    return moved;
}

class TestTuning : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stepsDownEndWhereTheConnectionsNoLongerCrowd()
    {
        // A shaper whose bucket starts full overstates the uplink in the first windows, so the
        // level settles above what the link needs; the connections then carry well below what one
        // carried alone (crowded), and the tuner steps down. Each step down is judged on one window
        // against the one before; on a noisy machine a step that cost a tenth can pass as held.
        // The way down goes on only while the connections are still crowded: it must not walk
        // below the level that fills the link. (Through linksim, 0.76 MB/s a connection, 31.6 MB/s,
        // 16 ms, it went 67 down to 34 where 42 are needed, 0.95 of the uplink.)
        for (quint32 seed = 1; seed <= 8; ++seed) {
            LinkModel link{0.76e6, 31.6e6, 16};
            link.burstFactor = 1.2;
            link.burstMs = 1500;
            link.drainMs = 700;
            link.noise = 0.15;
            link.noiseSeed = seed;
            ConcurrencyTuner tuner(tunerFor(12, 192, link.rttMs));
            const LinkModel::Run run = link.run(tuner, 30000);
            const int needed = int(std::ceil(link.uplink / link.perConnection));
            qInfo("seed %u: %s", seed, qPrintable(run.summary()));
            QVERIFY2(run.minLevelOnceSettled >= needed, qPrintable(run.summary()));
            QVERIFY2(run.steadyMean >= 0.97 * link.uplink, qPrintable(run.summary()));
        }
    }
    void reachesThePlateauFastOnAnyLink_data()
    {
        // Links drawn from a seed over the family of issue #11: 0.25-20 MB/s per connection,
        // 5-300 ms, 5-120 MB/s. The checks are the targets, not figures of these rows.
        QTest::addColumn<double>("perConnection");
        QTest::addColumn<double>("uplink");
        QTest::addColumn<double>("rttMs");
        QRandomGenerator random(20261201);
        const auto logUniform = [&random](double low, double high) {
            return std::exp(std::log(low) + random.generateDouble() * (std::log(high) - std::log(low)));
        };
        for (int i = 0; i < 40; ++i) {
            const double uplink = logUniform(5, 120) * 1e6;
            const double perConnection = std::min(logUniform(0.25, 20) * 1e6, uplink);
            const double rtt = logUniform(5, 300);
            QTest::addRow("%.2f MB/s per connection, %.1f MB/s, %.0f ms", perConnection / 1e6, uplink / 1e6,
                          rtt)
                << perConnection << uplink << rtt;
        }
    }
    void reachesThePlateauFastOnAnyLink()
    {
        QFETCH(double, perConnection);
        QFETCH(double, uplink);
        QFETCH(double, rttMs);
        LinkModel link{perConnection, uplink, rttMs};
        link.cap = 256;
        ConcurrencyTuner tuner(tunerFor(12, link.cap, rttMs));
        const double reachable = std::min(uplink, link.cap * perConnection);
        const LinkModel::Run run = link.run(tuner, 30000);
        const QString what = QStringLiteral("90 %% after %1 ms, level %2 (needs %3), steady %4-%5 MB/s; %6")
                                 .arg(run.firstTo90Ms)
                                 .arg(run.finalLevel)
                                 .arg(std::ceil(uplink / perConnection))
                                 .arg(run.steadyMin / 1e6, 0, 'f', 1)
                                 .arg(run.steadyMax / 1e6, 0, 'f', 1)
                                 .arg(run.reason);
        // 90 % of the final rate within 1 s + 3 round trips, counted here from the start (the
        // first byte goes 1.5 round trips after it).
        QVERIFY2(run.firstTo90Ms >= 0 && run.firstTo90Ms <= 1000 + qint64(4.5 * rttMs), qPrintable(what));
        // Steady within 10 %, and at the uplink.
        QVERIFY2(run.steadyMin >= 0.9 * reachable && run.steadyMax <= 1.1 * reachable, qPrintable(what));
        // Not far above what the link needs.
        // (12 is the start; a step up being tried adds a tenth.)
        QVERIFY2(run.finalLevel <= std::max(1.1 * 12, 1.5 * std::ceil(uplink / perConnection)),
                 qPrintable(what));
    }

    void slowStartDoesNotHideThePlateau_data()
    {
        QTest::addColumn<double>("perConnection");
        QTest::addColumn<double>("uplink");
        QTest::addColumn<double>("rttMs");
        QTest::newRow("2 MB/s, 20 MB/s, 100 ms") << 2e6 << 20e6 << 100.0;
        QTest::newRow("0.5 MB/s, 30 MB/s, 50 ms") << 0.5e6 << 30e6 << 50.0;
        QTest::newRow("4 MB/s, 90 MB/s, 200 ms") << 4e6 << 90e6 << 200.0;
    }
    void slowStartDoesNotHideThePlateau()
    {
        // Real TCP on the path: new connections take a few round trips to reach their rate.
        // Judging them before that would put the plateau too low.
        QFETCH(double, perConnection);
        QFETCH(double, uplink);
        QFETCH(double, rttMs);
        LinkModel link{perConnection, uplink, rttMs};
        link.slowStart = true;
        link.cap = 256;
        ConcurrencyTuner tuner(tunerFor(24, link.cap, rttMs));
        const LinkModel::Run run = link.run(tuner, 30000);
        const QString what = QStringLiteral("level %1 (needs %2), steady %3-%4 MB/s, 90 %% after %5 ms")
                                 .arg(run.finalLevel)
                                 .arg(std::ceil(uplink / perConnection))
                                 .arg(run.steadyMin / 1e6, 0, 'f', 1)
                                 .arg(run.steadyMax / 1e6, 0, 'f', 1)
                                 .arg(run.firstTo90Ms);
        QVERIFY2(run.steadyMin >= 0.9 * uplink, qPrintable(what));
        QVERIFY2(run.finalLevel <= std::max(1.1 * 24, 1.5 * std::ceil(uplink / perConnection) + 3),
                 qPrintable(what));
    }

    void theStartGrowsWithTheRoundTrip()
    {
        // A LAN, then any path up to 100 ms, then in proportion to the round trip: a connection's
        // rate falls as one over it (window- or loss-limited TCP), and the first level is held for
        // its first windows, several round trips, so a start too low costs most on a long path.
        QCOMPARE(ConcurrencyTuner::startingLevel(0, 3), 12); // not measured yet
        QCOMPARE(ConcurrencyTuner::startingLevel(0.3, 3), 12);
        QCOMPARE(ConcurrencyTuner::startingLevel(20, 3), 24);
        QCOMPARE(ConcurrencyTuner::startingLevel(100, 3), 24);
        QCOMPARE(ConcurrencyTuner::startingLevel(150, 1), 12);
        QCOMPARE(ConcurrencyTuner::startingLevel(268, 3), 66);
        int last = 0;
        for (double rtt = 1; rtt <= 300; rtt += 1) {
            const int level = ConcurrencyTuner::startingLevel(rtt, 3);
            QVERIFY2(level >= last,
                     qPrintable(QStringLiteral("%1 at %2 ms, %3 before").arg(level).arg(rtt).arg(last)));
            last = level;
        }
        // What a long path starts at carries the link where a connection is window-limited: a
        // 160 KiB window across 268 ms is 0.61 MB/s, 66 of them 40 MB/s.
        LinkModel link{160 * 1024 / 0.268, 30e6, 268};
        link.firstHopMaxMs = 10;
        ConcurrencyTuner tuner(tunerFor(ConcurrencyTuner::startingLevel(268, 3), 192, 268));
        const LinkModel::Run run = link.run(tuner, 10000);
        QVERIFY2(run.firstTo90Ms >= 0 && run.firstTo90Ms <= qint64(3 * link.rttMs),
                 qPrintable(run.summary()));
    }

    void oneConnectionThatFillsTheUplinkKeepsTheLevelSmall()
    {
        const LinkModel link{60e6, 30e6, 20};
        ConcurrencyTuner tuner(tunerFor(12, 256, 20));
        const LinkModel::Run run = link.run(tuner, 20000);
        QVERIFY2(run.finalLevel <= 12, qPrintable(run.reason));
        QVERIFY2(run.maxLevel <= 24, qPrintable(QString::number(run.maxLevel)));
        QVERIFY(run.steadyMin >= 0.95 * 30e6);
    }

    void theUploadsOwnStartIsNotTakenForTheLevel()
    {
        // Across a long path the first bytes move a few round trips after the tuner starts (the
        // create, then the chunks). A window over that time would undersell the first level, so
        // the next step would look as if it paid in full and the search would run to the ceiling
        // on a link that 3 connections fill.
        LinkModel link{10.5e6, 26e6, 97};
        link.startDelayMs = 400;
        ConcurrencyTuner tuner(tunerFor(24, 192, 97));
        const LinkModel::Run run = link.run(tuner, 15000);
        // One trial step up (x4 at this round trip) is the search; a second is the mistake.
        QVERIFY2(run.maxLevel <= 96, qPrintable(QStringLiteral("went up to %1").arg(run.maxLevel)));
        QVERIFY2(run.finalLevel <= 24, qPrintable(run.reason));
        QVERIFY(run.steadyMin >= 0.95 * 26e6);
    }

    void aStepWhoseNewConnectionsHaveNotStartedIsLookedAtAgain()
    {
        // At a short round trip a window is judged 150 ms after a step; connections that take
        // longer than that to carry make the step look as if it bought nothing, and the plateau
        // would be put at the level below it, short of what the link needs (56 here).
        LinkModel link{0.82e6, 45.3e6, 19};
        link.newConnectionDelayMs = 200;
        link.cap = 192;
        ConcurrencyTuner tuner(tunerFor(12, 192, 19));
        const LinkModel::Run run = link.run(tuner, 4000);
        QVERIFY2(run.firstSettledLevel >= std::ceil(45.3 / 0.82), qPrintable(run.summary()));
        QVERIFY2(run.steadyMin >= 0.95 * 45.3e6, qPrintable(run.summary()));
    }

    void neverPassesTheCap()
    {
        const LinkModel link{1e6, 100e6, 50};
        ConcurrencyTuner tuner(tunerFor(4, 40));
        const LinkModel::Run run = link.run(tuner, 10000);
        QCOMPARE(run.maxLevel, 40);
        QVERIFY2(run.reason.contains(QStringLiteral("the most the receivers allow")), qPrintable(run.reason));
    }

    void aWindowThatCarriedNothingGivesNoRateInTheReason()
    {
        // At the ceiling after a window whose connections were busy but delivered nothing (all
        // waiting for answers): "(0 B/s each)" would be a figure nobody measured.
        ConcurrencyTuner tuner(tunerFor(8, 8, 40));
        qint64 busy = 0;
        for (qint64 t = 0; t <= 2000; t += 100) {
            busy += 8 * 100;
            tuner.update({t, 1000, 0, busy});
        }
        QVERIFY(tuner.isSettled());
        QVERIFY2(tuner.reason().contains(QStringLiteral("the most the receivers allow")),
                 qPrintable(tuner.reason()));
        QVERIFY2(!tuner.reason().contains(QStringLiteral("0 B/s")), qPrintable(tuner.reason()));
    }

    void backsOffOnErrorsAndHardOnOverload_data()
    {
        QTest::addColumn<bool>("overload");
        QTest::addColumn<double>("factor");
        QTest::newRow("errors") << false << 0.75;
        QTest::newRow("overloaded") << true << 0.5;
    }
    void backsOffOnErrorsAndHardOnOverload()
    {
        QFETCH(bool, overload);
        QFETCH(double, factor);
        const LinkModel link{2e6, 24e6, 40};
        ConcurrencyTuner tuner(tunerFor(12, 64, 40));
        // Errors at 5 s, in a steady state: the level drops at once, by the factor.
        const LinkModel::Run run = link.run(tuner, 6000, 5000, overload);
        QVERIFY(run.levelBeforeErrors >= 12);
        QCOMPARE(run.levelAfterErrors, int(std::floor(run.levelBeforeErrors * factor)));
        QVERIFY2(
            run.reasonAfterErrors.contains(overload ? QStringLiteral("slow down") : QStringLiteral("errors")),
            qPrintable(run.reasonAfterErrors));
    }

    void stepsDownWhenMoreOnlyFillsAQueue()
    {
        // 1 MB/s per connection, 20 MB/s, 40 ms, and a 200 ms queue that the excess fills: past
        // 20 connections goodput stays, the round trip grows. The tuner comes back down.
        LinkModel link{1e6, 20e6, 40, 200};
        ConcurrencyTuner tuner(tunerFor(12, 256, 40));
        const LinkModel::Run run = link.run(tuner, 40000);
        QVERIFY2(run.finalLevel <= 24,
                 qPrintable(QStringLiteral("%1: %2").arg(run.finalLevel).arg(run.reason)));
        QVERIFY(run.steadyMin >= 0.9 * 20e6);
        // The control: without the round trip rising, the same link keeps what the model chose.
        link.queueMs = 0;
        ConcurrencyTuner control(tunerFor(12, 256, 40));
        QVERIFY(link.run(control, 40000).finalLevel >= 20);
    }

    void aQueueStandingAtTheFirstLevelEndsTheSearch()
    {
        // Real TCP, 104 ms, a 37 MB/s bottleneck with a 190 ms queue, 2 MB/s a connection: the
        // first 24 connections already fill it and a queue stands. A step up to 96 would only
        // overflow the queue, and stepping back from it leaves connections with small windows.
        LinkModel link{2e6, 37e6, 104, 190};
        link.slowStart = true;
        ConcurrencyTuner tuner(tunerFor(24, 192, 104));
        const LinkModel::Run run = link.run(tuner, 20000);
        QVERIFY2(run.maxLevel <= 26, qPrintable(QStringLiteral("went up to %1").arg(run.maxLevel)));
        QVERIFY2(run.steadyMin >= 0.95 * 37e6, qPrintable(QStringLiteral("%1 MB/s at %2: %3")
                                                              .arg(run.steadyMin / 1e6)
                                                              .arg(run.finalLevel)
                                                              .arg(run.reason)));
        // The control: without the queue to show it, the search takes its trial step up.
        link.queueMs = 0;
        ConcurrencyTuner control(tunerFor(24, 192, 104));
        QVERIFY(link.run(control, 20000).maxLevel > 26);
    }

    void aPlateauPutShortByNoisyWindowsRises()
    {
        // 0.42 MB/s a connection, 65 MB/s, 108 ms: 156 connections fill it. Through linksim at
        // such levels goodput moves by up to 40 % from one 100 ms to the next, so the search's
        // plateau, resting on a window or two, may be put well short, and a step up of a tenth
        // from there pays less than the windows move: it is never kept. Settled, the connections
        // then still each carry what one carried while the link had room, which the plateau's
        // running rate shows through the noise, and the level rises. Noise this large still puts
        // some seeds short over the last half; without the rule more than one in five are.
        int shortOfTheUplink = 0;
        const int seeds = 128;
        for (quint32 seed = 1; seed <= quint32(seeds); ++seed) {
            LinkModel link{0.42e6, 65.3e6, 108};
            link.noise = 0.4;
            link.noiseSeed = seed;
            ConcurrencyTuner tuner(tunerFor(27, 192, link.rttMs));
            const LinkModel::Run run = link.run(tuner, 30000);
            if (run.steadyMean < 0.95 * link.uplink) {
                ++shortOfTheUplink;
                qInfo("seed %u: %s", seed, qPrintable(run.summary()));
            }
        }
        QVERIFY2(shortOfTheUplink <= seeds / 8, qPrintable(QString::number(shortOfTheUplink)));
    }

    void noisyWindowsDoNotWalkTheLevelUp_data()
    {
        QTest::addColumn<quint32>("seed");
        for (quint32 seed = 1; seed <= quint32(std::max(8, qEnvironmentVariableIntValue("SEEDS"))); ++seed)
            QTest::addRow("seed %u", seed) << seed;
    }
    void noisyWindowsDoNotWalkTheLevelUp()
    {
        // 1.7 MB/s a connection, 9 MB/s, 29 ms: the first 24 connections already fill it. Measured
        // through linksim on a busy machine, windows of 100-200 ms carried anything from 0 to 24
        // MB/s, and a level found from two of them overestimated the uplink by up to 80 %; the
        // next window, an honest one, looked like a link gone slow, and each search from there
        // kept a level above the last (24 -> 36 -> 54 -> 81 -> 121 -> 192 in 7 s).
        QFETCH(quint32, seed);
        LinkModel link{1.7e6, 9e6, 29};
        link.noise = 0.6;
        link.noiseSeed = seed;
        ConcurrencyTuner tuner(tunerFor(24, 192, 29));
        const LinkModel::Run run = link.run(tuner, 30000);
        // Settled, it may try a step or two up and keep them, and a search may look higher for a
        // moment; it must not end up climbing search after search.
        QVERIFY2(run.finalLevel <= 1.5 * run.firstSettledLevel, qPrintable(run.summary()));
        // Nor walk down below the six connections the link needs.
        QVERIFY2(run.minLevelOnceSettled >= 6, qPrintable(run.summary()));
    }

    void aProxysFirstHopIsNotTakenForAQueue()
    {
        // A window-limited link behind a proxy next door: 1.8 MB/s a connection, 108 MB/s, 76 ms,
        // so it needs 60 connections. The connections see only the first hop, whose round trip a
        // busy machine (client, proxy and receiver on two cores) pushes up to 20 ms as it moves more:
        // that is no queue on the path, and the search must go on past its first level.
        LinkModel link{1.83e6, 108e6, 76.2};
        link.firstHopMaxMs = 20;
        ConcurrencyTuner tuner(tunerFor(24, 384, 76.2));
        const LinkModel::Run run = link.run(tuner, 15000);
        QVERIFY2(run.steadyMin >= 0.9 * 108e6, qPrintable(run.summary()));
        // The control: with no end-to-end round trip to compare it with, the same first hop reads
        // as a queue standing at the first level, and the search ends there.
        link.pathChecked = false;
        ConcurrencyTuner control(tunerFor(24, 384, 76.2));
        QVERIFY(link.run(control, 15000).maxLevel <= 26);
    }

    void anOvershootOnRealTcpIsNotUndoneAtOnce()
    {
        // A lossy long path: 0.35 MB/s a connection, 22 MB/s, 100 ms. The search overshoots
        // (48 -> 192) and the model's level is far below; connections kept after a step that far
        // down carry the small windows they had while sharing, and take a second or more to grow
        // them. Judged at once, that looks like a link gone slow, and the search goes up again.
        LinkModel link{0.35e6, 22e6, 100};
        link.slowStart = true;
        link.sharedWindows = true;
        ConcurrencyTuner tuner(tunerFor(48, 192, 100));
        const LinkModel::Run run = link.run(tuner, 30000);
        QVERIFY2(run.maxLevelOnceSettled <= 1.25 * run.firstSettledLevel,
                 qPrintable(QStringLiteral("settled at %1, then up to %2")
                                .arg(run.firstSettledLevel)
                                .arg(run.maxLevelOnceSettled)));
        QVERIFY2(run.steadyMin >= 0.9 * 22e6, qPrintable(QStringLiteral("%1 MB/s at %2: %3")
                                                             .arg(run.steadyMin / 1e6)
                                                             .arg(run.finalLevel)
                                                             .arg(run.reason)));
    }

    void theWayDownStopsWhereTheQueueIsGone()
    {
        // A lossy long path with a deep queue: 0.25 MB/s a connection once losses set in, three
        // times that for the first 1.5 s, 22 MB/s, 99 ms, a 157 ms queue (path 2 of the WAN
        // benchmark). The search overshoots into a standing queue and the model's level, from the
        // first windows' rate per connection, is a third of what the link needs (88). Going down a
        // step a window, the queue is gone one step below 88 at most: the way down stops
        // there (lower only loses goodput), and the probes take it from there.
        ConcurrencyTuner tuner(tunerFor(24, 192, 99));
        const LinkModel::Run run = lossyDeepPath(1500).run(tuner, 20000);
        QVERIFY2(run.minLevelOnceSettled >= 0.75 * 88, qPrintable(run.summary()));
    }

    void aWayDownThatCostsGoodputEndsAStepUp()
    {
        // Path 1 of the WAN benchmark: 23 ms, 0.8 % loss, 21 MB/s, a 6 ms queue. The first windows
        // (slow start running past what loss will hold each connection to) make 24 connections
        // look as if they filled the link, so a step to 48 buys little and the model's level is
        // low; but once losses set in, 24 carry 0.86 of the link, 36 0.93 and 48 0.96. The way
        // down from 48 must stop where it has cost goodput (the code before went on to 29-31 and
        // got 0.90). An upload of 10 s: the probes a tenth up would get there in time for a
        // longer one.
        LinkModel link = lossyPath(1.475e6, 21e6, 23, 6, 2, 2, 600);
        ConcurrencyTuner tuner(tunerFor(24, 192, 23));
        const LinkModel::Run run = link.run(tuner, 10000);
        QVERIFY2(run.steadyMean >= 0.93 * link.uplink, qPrintable(run.summary()));
        // The control: where the connections keep their first rate, the model's level is right
        // and the way down goes there.
        link.earlyFactor = 1;
        link.softKnee = 0;
        link.perConnection = 1.66e6;
        ConcurrencyTuner control(tunerFor(24, 192, 23));
        const LinkModel::Run controlRun = link.run(control, 20000);
        QVERIFY2(controlRun.finalLevel <= 26, qPrintable(controlRun.summary()));
    }

    void aPlateauOfSlowStartsQueueIsLeftWhenTheQueueDrains()
    {
        // Path 6 of the WAN benchmark: 85 ms, 0.56 % loss, 11 MB/s, a 156 ms queue. The first 24
        // connections in slow start fill the queue, so the search ends at the first level; once
        // losses set in they carry 0.85 of the link, the queue drains and stays empty, and the
        // level must rise within an upload of 10 s (the code before stayed at 24-26 and got 0.88:
        // noise of a tenth keeps the probes a tenth up from paying visibly).
        LinkModel link = lossyPath(0.47e6, 11e6, 85, 156, 4, 3, 2000);
        link.noise = 0.1;
        ConcurrencyTuner tuner(tunerFor(24, 192, 85));
        const LinkModel::Run run = link.run(tuner, 10000);
        QVERIFY2(run.steadyMean >= 0.91 * link.uplink, qPrintable(run.summary()));
        // The control: where the first level truly fills the link, the queue stays and so does
        // the level.
        link.perConnection = 0.7e6;
        ConcurrencyTuner control(tunerFor(24, 192, 85));
        const LinkModel::Run controlRun = link.run(control, 20000);
        QVERIFY2(controlRun.maxLevelOnceSettled <= 27, qPrintable(controlRun.summary()));
    }

    void aLevelThatKeepsFallingShortIsNotReturnedTo()
    {
        // Path 2 of the WAN benchmark as it behaved through the real kernel: the first windows'
        // rate per connection (three times what loss later holds each to, for about 3 s) puts
        // the model's level at 54, and the queue is still standing when the way down reaches it.
        // 54 then carries 13.5 MB/s of 22: a search from there finds 22 MB/s at a higher level,
        // no more than the plateau figure 54 was credited with (from those first windows), so it
        // went back to 54, fell short again, and so on (54 -> 81 -> 192 -> 54 -> 81, measured).
        ConcurrencyTuner tuner(tunerFor(24, 192, 99));
        const LinkModel::Run run = lossyDeepPath(3000).run(tuner, 30000);
        // Probes a tenth up and down once settled cost a window each, no more.
        QVERIFY2(run.minLevelOnceSettled >= 0.75 * 88, qPrintable(run.summary()));
        QVERIFY2(run.steadyMean >= 0.9 * 22e6, qPrintable(run.summary()));
    }

    void holdsWhenTheWorkRunsOut()
    {
        // 2 MB/s per connection, 24 MB/s link. At 4 s only 4 requests are left (the last chunks
        // of the upload) and the rate drops to a third. That is the work running out, not the
        // link changing: the level must stay, or the last chunks queue behind fewer.
        QVERIFY(!levelMovesAfterDrop({}, 4, 24e6));
        // The control: judged without looking at how busy the connections were, the same run
        // moves the level (the scenario really is one that misleads a blind tuner).
        ConcurrencyTuner::Options blind;
        blind.busyToJudge = 0;
        QVERIFY(levelMovesAfterDrop(blind, 4, 24e6));
        // The same drop with every connection busy is the link getting worse: acted on.
        QVERIFY(levelMovesAfterDrop({}, 1000, 8e6));
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

    void aRequestOutForLongSaysWhatAnEndpointDelivers()
    {
        EndpointScorer scorer(3);
        for (int i = 0; i < 3; ++i)
            scorer.recordSuccess(0, 1000000, 200);         // 5 MB/s a request, 200 ms each
        QCOMPARE(scorer.weight(1), EndpointScorer::Scale); // not measured, nothing out: full chance

        scorer.recordOutstanding({{1, 1000000, 790}});
        QCOMPARE(scorer.weight(1), EndpointScorer::Scale); // under four times the best's requests
        scorer.recordOutstanding({{1, 1000000, 2000}});
        QCOMPARE(scorer.weight(1), EndpointScorer::Scale / 10); // at most 0.5 MB/s
        // The tightest bound of the endpoint's requests counts; each call replaces the last.
        scorer.recordOutstanding({{1, 4000000, 2000}, {1, 1000000, 4000}, {2, 1000000, 1000}});
        QCOMPARE(scorer.weight(1), EndpointScorer::Scale / 20);
        QCOMPARE(scorer.weight(2), EndpointScorer::Scale / 5);
        scorer.recordOutstanding({});
        QCOMPARE(scorer.weight(1), EndpointScorer::Scale);
        // A small request is judged by the time the best one's take, not by their rate: 10 KB
        // out for a second is a fifth of the best (its requests take 200 ms), not a 500th.
        scorer.recordOutstanding({{1, 10000, 1000}});
        QCOMPARE(scorer.weight(1), EndpointScorer::Scale / 5);
        scorer.clearOutstanding(1);
        QCOMPARE(scorer.weight(1), EndpointScorer::Scale);

        // A measured endpoint that stalls loses its share before the stalled request ends, and
        // the others are judged against the best as its answers left it.
        scorer.recordSuccess(1, 1000000, 200);
        scorer.recordSuccess(1, 1000000, 200);
        scorer.recordOutstanding({{0, 1000000, 10000}}); // 0.1 MB/s
        QCOMPARE(scorer.weight(0), EndpointScorer::Scale / 50);
        QCOMPARE(scorer.weight(1), EndpointScorer::Scale);
        scorer.recordOutstanding({});
        QCOMPARE(scorer.weight(0), EndpointScorer::Scale);
    }

    void aClearlySlowerEndpointQueuesLessAndLeavesTheEndToOthers()
    {
        EndpointScorer scorer(3);
        for (int i = 0; i < 3; ++i) {
            scorer.recordSuccess(0, 1000000, 200);  // 5 MB/s a request
            scorer.recordSuccess(1, 1000000, 300);  // 3.3 MB/s: alike (within a factor of two)
            scorer.recordSuccess(2, 1000000, 2000); // 0.5 MB/s: clearly slower
        }
        QCOMPARE(scorer.pipelineShare(0), 1.0);
        QCOMPARE(scorer.pipelineShare(1), 1.0);
        QCOMPARE(scorer.pipelineShare(2), 0.1);

        // 1 MB behind 1 MB already on its connection takes the slow one 4 s; the best one 0.2 s.
        QVERIFY(!scorer.outlastsTheRest(2, 1000000, 1000000, 10.0)); // done long before the rest
        QVERIFY(!scorer.outlastsTheRest(2, 1000000, 1000000, 3.9));  // done as the rest is
        QVERIFY(scorer.outlastsTheRest(2, 1000000, 1000000, 3.7));   // the upload would wait for it
        QVERIFY(scorer.outlastsTheRest(2, 1000000, 0, 0.5));
        // Endpoints alike the best take their share to the end: which of them is faster is noise.
        QVERIFY(!scorer.outlastsTheRest(1, 1000000, 1000000, 0.0));
        QVERIFY(!scorer.outlastsTheRest(0, 1000000, 1000000, 0.0));

        // One that carried small files has a low rate by their round trips, not a slow link: its
        // requests took no longer than the best one's.
        EndpointScorer mixed(2);
        for (int i = 0; i < 3; ++i) {
            mixed.recordSuccess(0, 1000000, 200); // 5 MB/s a request
            mixed.recordSuccess(1, 10000, 5);     // 2 MB/s a request, 5 ms each
        }
        QCOMPARE(mixed.pipelineShare(1), 1.0);
        QVERIFY(!mixed.outlastsTheRest(1, 1000000, 0, 0.0));
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
