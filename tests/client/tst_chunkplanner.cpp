#include "ChunkPlanner.h"

#include <QTest>

using namespace multilane;

class TestChunkPlanner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void counts_data()
    {
        QTest::addColumn<qint64>("size");
        QTest::addColumn<qint64>("chunk");
        QTest::addColumn<int>("count");
        QTest::addColumn<qint64>("lastLength");
        QTest::newRow("empty") << qint64(0) << qint64(1024) << 0 << qint64(0);
        QTest::newRow("one byte") << qint64(1) << qint64(1024) << 1 << qint64(1);
        QTest::newRow("exactly one chunk") << qint64(1024) << qint64(1024) << 1 << qint64(1024);
        QTest::newRow("one byte over") << qint64(1025) << qint64(1024) << 2 << qint64(1);
        QTest::newRow("many") << qint64(10 * 1024 + 7) << qint64(1024) << 11 << qint64(7);
        QTest::newRow("huge") << qint64(40) * 1024 * 1024 * 1024 << qint64(8) * 1024 * 1024 << 5120
                              << qint64(8) * 1024 * 1024;
    }
    void counts()
    {
        QFETCH(qint64, size);
        QFETCH(qint64, chunk);
        QFETCH(int, count);
        QFETCH(qint64, lastLength);
        const ChunkPlanner planner(size, chunk);
        QCOMPARE(planner.chunkCount(), count);
        QCOMPARE(planner.isSingleRequest(), size <= chunk);
        if (count == 0)
            return;
        QCOMPARE(planner.chunk(count - 1).length, lastLength);
        // The chunks tile the file exactly: no gap, no overlap.
        qint64 next = 0;
        for (int i = 0; i < count; ++i) {
            const ChunkRange range = planner.chunk(i);
            QCOMPARE(range.index, i);
            QCOMPARE(range.offset, next);
            QVERIFY(range.length > 0 && range.length <= chunk);
            next += range.length;
        }
        QCOMPARE(next, size);
    }
};

QTEST_GUILESS_MAIN(TestChunkPlanner)
#include "tst_chunkplanner.moc"
