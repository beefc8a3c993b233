// What the window computes from the engine's counts, with the clock in the test's hands: the
// smoothed speed, what is done when the sockets' queues hold bytes not yet delivered, each row's
// share of the speed, the time left, and the units and order names are shown in.
#include "LiveFigures.h"
#include "NaturalOrder.h"
#include "SmoothedRate.h"
#include "SpeedHistory.h"
#include "Units.h"

#include <QTest>

using namespace multilane;
using Activity = LiveFigures::Activity;

class TestUiFigures : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rateIsUnknownBeforeASecondThenSteady()
    {
        SmoothedRate rate;
        rate.addSample(0, 0);
        rate.addSample(500, 50'000'000); // a burst into buffers in the first half second
        QVERIFY(!rate.bytesPerSecond(500));
        for (qint64 t = 1000; t <= 10000; t += 500)
            rate.addSample(t, 50'000'000 + (t - 500) * 5000); // then 5 MB/s
        QCOMPARE(qRound(*rate.bytesPerSecond(10000)), 5'000'000);
    }

    void rateFallsWhenNothingComesAndResetForgets()
    {
        SmoothedRate rate;
        for (qint64 t = 0; t <= 5000; t += 500)
            rate.addSample(t, t * 1000); // 1 MB/s
        QCOMPARE(qRound(*rate.bytesPerSecond(5000)), 1'000'000);
        // No sample for 2.5 s: half the window had nothing.
        QCOMPARE(qRound(*rate.bytesPerSecond(7500)), 500'000);
        QCOMPARE(*rate.bytesPerSecond(10000), 0.0);
        rate.reset();
        rate.addSample(11000, 5'000'000);
        QVERIFY(!rate.bytesPerSecond(11000));
    }

    void longerWindowEvensOutBursts()
    {
        // Requests that start and end together: 10 MB every 2 s, nothing in between.
        SmoothedRate rate;
        qint64 total = 0;
        for (qint64 t = 0; t <= 30000; t += 500) {
            if (t % 2000 == 0)
                total += 10'000'000;
            rate.addSample(t, total);
        }
        QCOMPARE(qRound(*rate.bytesPerSecond(30000, 20000) / 1000), 5000);
    }

    void doneLeavesOutWhatTheQueuesHold()
    {
        LiveFigures figures;
        // Two files: 4 MB acknowledged + 6 MB handed on, and 0 + 2 MB; 4 MB of the 8 handed on
        // still sit in socket queues: half of each file's share is not there yet.
        const QList<LiveFigures::RowInput> rows{{1, 20'000'000, 4'000'000, 6'000'000, Activity::Moving},
                                                {2, 10'000'000, 0, 2'000'000, Activity::Moving}};
        figures.update(0, {0, 4'000'000}, rows);
        QCOMPARE(figures.rows().at(0).done, qint64(7'000'000));
        QCOMPARE(figures.rows().at(1).done, qint64(1'000'000));
        QCOMPARE(figures.totals().bytesDone, qint64(8'000'000));
        QCOMPARE(figures.totals().bytesTotal, qint64(30'000'000));
        // The kernel cannot tell: what was handed on counts.
        figures.update(500, {}, rows);
        QCOMPARE(figures.totals().bytesDone, qint64(12'000'000));
    }

    void rowsShareTheMeasuredSpeedAndHeldRowsShowNone()
    {
        LiveFigures figures;
        // File 1 hands on three times what file 2 does; 100 MB/s are handed on in all, but only
        // 5 MB/s arrive (the rest fills buffers): the rows share the 5.
        qint64 delivered = 0;
        for (qint64 t = 0; t <= 6000; t += 500) {
            const qint64 handed = t * 100'000; // 100 MB/s
            figures.update(t, {delivered, 0},
                           {{1, qint64(1) << 40, 0, handed * 3 / 4, Activity::Moving},
                            {2, qint64(1) << 40, 0, handed / 4, Activity::Moving},
                            {3, 1'000'000, 0, 0, Activity::Held},
                            {4, 1'000'000, 0, 0, Activity::Pending}});
            delivered += 2'500'000;
        }
        const double total = *figures.totals().bytesPerSecond;
        QCOMPARE(qRound(total / 1000), 5000);
        QCOMPARE(qRound(*figures.rows().at(0).bytesPerSecond / 1000), 3750);
        QCOMPARE(qRound(*figures.rows().at(1).bytesPerSecond / 1000), 1250);
        QVERIFY(!figures.rows().at(2).bytesPerSecond);
        QVERIFY(!figures.rows().at(3).bytesPerSecond);
    }

    void nothingMovingMeansNoSpeedAndAFreshStart()
    {
        LiveFigures figures;
        for (qint64 t = 0; t <= 6000; t += 500)
            figures.update(t, {t * 5000, 0}, {{1, 100'000'000, 0, t * 5000, Activity::Moving}});
        QVERIFY(figures.totals().bytesPerSecond);
        // Paused (or waiting for receivers): no speed, no time left, and the old speed is gone.
        figures.update(6500, {32'500'000, 0}, {{1, 100'000'000, 0, 30'000'000, Activity::Held}});
        QVERIFY(!figures.totals().bytesPerSecond);
        QVERIFY(!figures.totals().secondsLeft);
        QVERIFY(!figures.rows().at(0).bytesPerSecond);
        figures.update(7000, {32'500'000, 0}, {{1, 100'000'000, 0, 30'000'000, Activity::Moving}});
        QVERIFY(!figures.totals().bytesPerSecond);
    }

    void aRowThatJumpsWhileStoppedAddsNoSpeed()
    {
        // The kernel cannot tell (delivered -1): the speed is what the rows hand on, each 1 MB/s.
        // The second file stops for a tick, in which 50 MB of it turn out to be on the receiver
        // already (a resume); that jump is no speed. (LiveFigures keeps no state for a row that
        // is not moving, which is right only as long as a row's next move starts afresh.)
        LiveFigures figures;
        const LiveFigures::Delivery unknown{-1, -1, 0};
        qint64 second = 0;
        for (qint64 t = 0; t <= 9000; t += 500) {
            second += t == 6000 ? 50'000'000 : t > 0 ? 500'000 : 0;
            const Activity activity = t == 6000 ? Activity::Pending : Activity::Moving;
            figures.update(
                t, unknown,
                {{1, 1'000'000'000, t * 1000, 0, Activity::Moving}, {2, 1'000'000'000, second, 0, activity}});
        }
        // Over the last 5 s: 5 MB from the first file, 4 MB from the second (nothing counted for
        // the tick it stopped and the one it came back); counting the jump would read 11.8 MB/s.
        QVERIFY(figures.totals().bytesPerSecond);
        QCOMPARE(qRound(*figures.totals().bytesPerSecond / 100'000), 18);
        QVERIFY(figures.rows().at(1).bytesPerSecond);
    }

    void timeLeftFollowsTheSpeedOnceMeasuredOverAWindow()
    {
        LiveFigures figures;
        const qint64 size = 100'000'000;
        // 5 MB/s, chunks of 1 MB acknowledged as they arrive.
        const auto at = [&](qint64 t) {
            const qint64 handed = t * 5000;
            const qint64 acked = std::max<qint64>(0, handed - 1'000'000);
            figures.update(t, {handed, 0}, {{1, size, acked, handed - acked, Activity::Moving}});
        };
        // Until the window leaves the first two seconds behind: "—", not a guess.
        for (qint64 t = 0; t <= 6500; t += 500) {
            at(t);
            QVERIFY(!figures.totals().secondsLeft);
        }
        at(7000);
        QCOMPARE(figures.totals().secondsLeft, std::optional<qint64>(13)); // 65 MB at 5 MB/s
        QCOMPARE(figures.rows().at(0).secondsLeft, std::optional<qint64>(13));
        QCOMPARE(Units::duration(figures.totals().secondsLeft), QStringLiteral("0:13"));
    }

    void neverAboveTheMeasuredUplinkWhileMeasuring()
    {
        LiveFigures figures;
        // The path's buffers take 6 MB in the first second of a 5 MB/s uplink measured at 5.
        qint64 delivered = 0;
        double highest = 0;
        for (qint64 t = 0; t <= 10000; t += 500) {
            delivered += t == 500 ? 6'000'000 : 2'500'000;
            figures.update(t, {delivered, 0, 5'000'000},
                           {{1, qint64(1) << 40, 0, 1'000'000, Activity::Moving}});
            highest = std::max(highest, figures.totals().bytesPerSecond.value_or(0));
        }
        QVERIFY2(highest <= 5'250'000, qPrintable(QString::number(highest)));
        QCOMPARE(qRound(*figures.totals().bytesPerSecond / 1000), 5000);
    }

    void windowGrowsWithWhatIsInFlight()
    {
        LiveFigures figures;
        // 50 MB in flight at 5 MB/s: ten seconds to get through, so the speed is averaged over 20.
        for (qint64 t = 0; t <= 30000; t += 500)
            figures.update(t, {t * 5000, 0}, {{1, qint64(1) << 40, 0, 50'000'000, Activity::Moving}});
        QCOMPARE(figures.windowMs(), qint64(20000));
        // A little in flight: the usual five seconds.
        LiveFigures small;
        for (qint64 t = 0; t <= 30000; t += 500)
            small.update(t, {t * 5000, 0}, {{1, qint64(1) << 40, 0, 1'000'000, Activity::Moving}});
        QCOMPARE(small.windowMs(), SmoothedRate::DefaultWindowMs);
    }

    void graphKeepsTheNewestFigureOfEachSecond()
    {
        SpeedHistory history;
        history.add(0, 1000);
        history.add(400, 9000); // a blip within the same second
        history.add(800, 2000);
        QCOMPARE(history.samples().size(), 1);
        QCOMPARE(history.peak(), 2000.0);
    }

    void oneUnitConvention_data()
    {
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<QString>("size");
        QTest::addColumn<QString>("rate");
        QTest::newRow("bytes") << qint64(999) << QStringLiteral("999 B") << QStringLiteral("999 B/s");
        QTest::newRow("kilo") << qint64(950'000) << QStringLiteral("950 kB") << QStringLiteral("950 kB/s");
        QTest::newRow("mega") << qint64(4'920'000) << QStringLiteral("4.92 MB")
                              << QStringLiteral("4.92 MB/s");
        QTest::newRow("tens") << qint64(287'600'000) << QStringLiteral("288 MB")
                              << QStringLiteral("288 MB/s");
        QTest::newRow("2 MiB chunk") << qint64(2 << 20) << QStringLiteral("2.10 MB")
                                     << QStringLiteral("2.10 MB/s");
        QTest::newRow("giga") << qint64(12'300'000'000) << QStringLiteral("12.3 GB")
                              << QStringLiteral("12.3 GB/s");
    }
    void oneUnitConvention()
    {
        QFETCH(qint64, bytes);
        QFETCH(QString, size);
        QFETCH(QString, rate);
        QCOMPARE(Units::size(bytes), size);
        QCOMPARE(Units::rate(double(bytes)), rate);
    }

    void durations()
    {
        QCOMPARE(Units::duration(std::nullopt), QStringLiteral("—"));
        QCOMPARE(Units::duration(42), QStringLiteral("0:42"));
        QCOMPARE(Units::duration(3723), QStringLiteral("1:02:03"));
    }

    void namesInNaturalOrder()
    {
        QStringList names{QStringLiteral("file10"), QStringLiteral("File2"), QStringLiteral("file1")};
        std::sort(names.begin(), names.end(), NaturalOrder::less);
        QCOMPARE(names,
                 (QStringList{QStringLiteral("file1"), QStringLiteral("File2"), QStringLiteral("file10")}));
    }
};

QTEST_GUILESS_MAIN(TestUiFigures)
#include "tst_ui_figures.moc"
