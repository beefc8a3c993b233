#include "DurationText.h"

#include <QTest>

using namespace multilane;
using namespace std::chrono_literals;

// The one duration grammar: everything the receiver's old DurationText and the client's old
// parseDuration took still parses to the same milliseconds, and what both refused stays refused.
class TestDurationText : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void accepted_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("milliseconds");
        // What the client's parseDuration took (tests/client/tst_commandline.cpp and its help).
        QTest::newRow("bare number is seconds") << QStringLiteral("90") << qint64(90000);
        QTest::newRow("decimal hours") << QStringLiteral("1.5h") << qint64(5400000);
        QTest::newRow("milliseconds") << QStringLiteral("250ms") << qint64(250);
        QTest::newRow("seconds") << QStringLiteral("30s") << qint64(30000);
        QTest::newRow("minutes") << QStringLiteral("10m") << qint64(600000);
        QTest::newRow("hours") << QStringLiteral("2h") << qint64(7200000);
        QTest::newRow("spaces around and between") << QStringLiteral(" 5 m ") << qint64(300000);
        QTest::newRow("decimal seconds") << QStringLiteral("0.5") << qint64(500);
        // What the receiver's DurationText took.
        QTest::newRow("days") << QStringLiteral("7d") << qint64(7) * 24 * 3600 * 1000;
        QTest::newRow("weeks") << QStringLiteral("2w") << qint64(14) * 24 * 3600 * 1000;
        QTest::newRow("upper case unit") << QStringLiteral("7D") << qint64(7) * 24 * 3600 * 1000;
        QTest::newRow("upper case ms") << QStringLiteral("250MS") << qint64(250);
        QTest::newRow("zero") << QStringLiteral("0") << qint64(0);
        QTest::newRow("zero with unit") << QStringLiteral("0s") << qint64(0);
        QTest::newRow("leading zeros") << QStringLiteral("007s") << qint64(7000);
        // Decimal arithmetic: the client's old double made 1.001 s 1000 ms.
        QTest::newRow("exact decimal") << QStringLiteral("1.001s") << qint64(1001);
        QTest::newRow("below a millisecond is dropped") << QStringLiteral("1.0009s") << qint64(1000);
        QTest::newRow("many fraction digits") << QStringLiteral("1.99999999999999s") << qint64(1999);
        QTest::newRow("largest") << QStringLiteral("9223372036854775807ms")
                                 << std::numeric_limits<qint64>::max();
    }

    void accepted()
    {
        QFETCH(QString, text);
        QFETCH(qint64, milliseconds);
        QCOMPARE(DurationText::parse(text), std::optional<std::chrono::milliseconds>(milliseconds));
    }

    void refused_data()
    {
        QTest::addColumn<QString>("text");
        for (const char *bad : {"",
                                " ",
                                "soon",
                                "-1d",
                                "-0",
                                "+5",
                                "7x",
                                "d",
                                "ms",
                                "5 m s",
                                "5ms s",
                                ".5h",
                                "5.",
                                "1.5.2s",
                                "1e5",
                                "0x10",
                                "5 5s",
                                "５s",
                                "99999999999999999d",
                                "9223372036854775808ms",
                                "9223372036854775807s",
                                "1,5h"})
            QTest::newRow(bad) << QString::fromUtf8(bad);
    }

    void refused()
    {
        QFETCH(QString, text);
        QCOMPARE(DurationText::parse(text), std::nullopt);
    }
};

QTEST_GUILESS_MAIN(TestDurationText)
#include "tst_durationtext.moc"
