#include "RateMeter.h"

#include <QTest>

using namespace multilane;

class TestRateMeter : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void steadyRate()
    {
        RateMeter meter(3000);
        for (qint64 t = 0; t <= 10000; t += 100)
            meter.addSample(t, t * 1000); // 1000 bytes per ms
        QCOMPARE(qRound(meter.bytesPerSecond(10000)), 1000000);
    }

    void windowForgetsOldSpeed()
    {
        RateMeter meter(3000);
        qint64 total = 0;
        for (qint64 t = 0; t <= 10000; t += 100) {
            meter.addSample(t, total);
            total += t < 5000 ? 100000 : 1000; // fast, then slow
        }
        const double rate = meter.bytesPerSecond(10000);
        QVERIFY2(rate < 20000, qPrintable(QString::number(rate)));
        QVERIFY(rate > 5000);
    }

    void noDataNoRate()
    {
        RateMeter meter;
        QCOMPARE(meter.bytesPerSecond(0), 0.0);
        meter.addSample(0, 0);
        QCOMPARE(meter.bytesPerSecond(1000), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestRateMeter)
#include "tst_ratemeter.moc"
