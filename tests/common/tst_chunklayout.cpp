#include "ChunkLayout.h"

#include <QTest>

using namespace multilane;

// Constant expressions: the layout can size arrays and be checked at compile time.
static_assert(ChunkLayout(10, 4).chunkCount() == 3);
static_assert(ChunkLayout(10, 4).length(2) == 2);

// The protocol's chunk arithmetic and its limits, for both ends.
class TestChunkLayout : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void chunks_data()
    {
        QTest::addColumn<qint64>("fileSize");
        QTest::addColumn<qint64>("chunkSize");
        QTest::addColumn<qint64>("count");
        QTest::addColumn<qint64>("lastLength");
        QTest::newRow("empty file") << qint64(0) << qint64(1024) << qint64(0) << qint64(0);
        QTest::newRow("one byte") << qint64(1) << qint64(1024) << qint64(1) << qint64(1);
        QTest::newRow("exact multiple") << qint64(4096) << qint64(1024) << qint64(4) << qint64(1024);
        QTest::newRow("shorter last") << qint64(10000) << qint64(4096) << qint64(3) << qint64(1808);
        QTest::newRow("one chunk") << qint64(1024) << qint64(1024) << qint64(1) << qint64(1024);
        QTest::newRow("large") << (qint64(5) << 40) + 7 << (qint64(1) << 30) << qint64(5121) << qint64(7);
    }

    void chunks()
    {
        QFETCH(qint64, fileSize);
        QFETCH(qint64, chunkSize);
        QFETCH(qint64, count);
        QFETCH(qint64, lastLength);
        const ChunkLayout layout(fileSize, chunkSize);
        QCOMPARE(layout.chunkCount(), count);
        QCOMPARE(layout.length(count - 1), lastLength);
        // The chunks tile the file: each starts where the one before ended, and they add up to it.
        qint64 covered = 0;
        for (qint64 index = 0; index < count; ++index) {
            QCOMPARE(layout.offset(index), covered);
            QVERIFY(layout.length(index) == chunkSize || index == count - 1);
            covered += layout.length(index);
        }
        QCOMPARE(covered, fileSize);
        QCOMPARE(layout.fitsInOneChunk(), fileSize <= chunkSize);
    }

    void indexesOutsideTheFileHaveNoBytes()
    {
        const ChunkLayout layout(10000, 4096);
        QVERIFY(!layout.contains(-1));
        QVERIFY(!layout.contains(3));
        QVERIFY(layout.contains(2));
        QCOMPARE(layout.length(-1), 0);
        QCOMPARE(layout.length(3), 0);
        QCOMPARE(layout.length(1000000), 0);
    }

    void badSizesAreClamped()
    {
        QCOMPARE(ChunkLayout(-5, 1024).chunkCount(), 0);
        QCOMPARE(ChunkLayout(10, 0).chunkSize(), 1);
        QCOMPARE(ChunkLayout(10, 0).chunkCount(), 10);
    }

    void limits_data()
    {
        QTest::addColumn<qint64>("fileSize");
        QTest::addColumn<qint64>("chunkSize");
        QTest::addColumn<QString>("problem"); // empty: allowed
        constexpr qint64 MaxCount = ChunkLayout::MaxChunkCount;
        QTest::newRow("ordinary") << qint64(123456789) << qint64(8 << 20) << QString();
        QTest::newRow("empty file") << qint64(0) << qint64(1) << QString();
        QTest::newRow("largest chunk") << qint64(1) << ChunkLayout::MaxChunkSize << QString();
        QTest::newRow("chunk over 1 GiB") << qint64(1) << ChunkLayout::MaxChunkSize + 1
                                          << QStringLiteral("\"chunkSize\" must be between 1 byte and 1 GiB");
        QTest::newRow("chunk of 0") << qint64(1) << qint64(0)
                                    << QStringLiteral("\"chunkSize\" must be between 1 byte and 1 GiB");
        QTest::newRow("negative size")
            << qint64(-1) << qint64(1) << QStringLiteral("\"size\" must not be negative");
        QTest::newRow("exactly the most chunks") << MaxCount * 1000 << qint64(1000) << QString();
        QTest::newRow("the most chunks, last shorter") << MaxCount * 1000 - 1 << qint64(1000) << QString();
        QTest::newRow("one chunk too many")
            << MaxCount * 1000 + 1 << qint64(1000)
            << QStringLiteral("1048576001 bytes in chunks of 1000 would be more than 1048576 chunks; use a "
                              "larger chunkSize");
        QTest::newRow("2^53 bytes in 1-byte chunks") << (qint64(1) << 53) << qint64(1) << QStringLiteral("…");
    }

    void limits()
    {
        QFETCH(qint64, fileSize);
        QFETCH(qint64, chunkSize);
        QFETCH(QString, problem);
        const std::optional<QString> found = ChunkLayout::problem(fileSize, chunkSize);
        if (problem.isEmpty())
            QCOMPARE(found, std::nullopt);
        else if (problem == u"…")
            QVERIFY(found.has_value());
        else
            QCOMPARE(found, std::optional<QString>(problem));
    }
};

QTEST_GUILESS_MAIN(TestChunkLayout)
#include "tst_chunklayout.moc"
