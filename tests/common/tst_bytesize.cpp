#include "ByteSize.h"

#include <QTest>

using namespace multilane;

class TestByteSize : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("bytes");
        QTest::newRow("plain") << QStringLiteral("1000000") << qint64(1000000);
        QTest::newRow("K") << QStringLiteral("8K") << qint64(8 << 10);
        QTest::newRow("KiB") << QStringLiteral("512KiB") << qint64(512 << 10);
        QTest::newRow("MB means MiB") << QStringLiteral("8MB") << qint64(8 << 20);
        QTest::newRow("fraction") << QStringLiteral("1.5G") << qint64(3) * (1 << 29);
        QTest::newRow("lower case, spaces") << QStringLiteral(" 2 m ") << qint64(2 << 20);
        QTest::newRow("T") << QStringLiteral("1T") << (qint64(1) << 40);
        QTest::newRow("zero") << QStringLiteral("0") << qint64(0);
    }

    void parse()
    {
        QFETCH(QString, text);
        QFETCH(qint64, bytes);
        QCOMPARE(ByteSize::parse(text), std::optional<qint64>(bytes));
    }

    void parseRefuses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << QString();
        QTest::newRow("negative") << QStringLiteral("-1");
        QTest::newRow("unknown unit") << QStringLiteral("5X");
        QTest::newRow("words") << QStringLiteral("lots");
        QTest::newRow("overflow") << QStringLiteral("99999999T");
    }

    void parseRefuses()
    {
        QFETCH(QString, text);
        QVERIFY(!ByteSize::parse(text).has_value());
    }

    void format()
    {
        QCOMPARE(ByteSize::format(0), QStringLiteral("0 B"));
        QCOMPARE(ByteSize::format(1023), QStringLiteral("1023 B"));
        QCOMPARE(ByteSize::format(1536), QStringLiteral("1.50 KiB"));
        QCOMPARE(ByteSize::format(qint64(8) << 20), QStringLiteral("8.00 MiB"));
        QCOMPARE(ByteSize::format(qint64(100) << 30), QStringLiteral("100.0 GiB"));
    }

    void formatRate()
    {
        QCOMPARE(ByteSize::formatRate(999), QStringLiteral("999 B/s"));
        QCOMPARE(ByteSize::formatRate(12.3e6), QStringLiteral("12.3 MB/s"));
        QCOMPARE(ByteSize::formatRate(2.5e9), QStringLiteral("2.5 GB/s"));
    }
};

QTEST_GUILESS_MAIN(TestByteSize)
#include "tst_bytesize.moc"
