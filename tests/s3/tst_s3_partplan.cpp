// S3's part-size rules and the ETags an upload must end with.
#include "Md5Digest.h"
#include "S3Etag.h"
#include "S3PartPlan.h"
#include "S3PartReconciler.h"

#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QTest>

using namespace multilane;

namespace {

constexpr qint64 MiB = S3PartPlan::MiB;
constexpr qint64 GiB = qint64(1) << 30;
constexpr qint64 TiB = qint64(1) << 40;

void verifyCoversFile(const S3PartPlan &plan)
{
    qint64 covered = 0;
    for (int part = 1; part <= plan.partCount(); ++part) {
        QCOMPARE(plan.partOffset(part), covered);
        const qint64 length = plan.partLength(part);
        QVERIFY(length > 0 || plan.fileSize() == 0);
        if (!plan.isSinglePut() && part < plan.partCount())
            QCOMPARE(length, plan.partSize());
        covered += length;
    }
    QCOMPARE(covered, plan.fileSize());
}

} // namespace

class TestS3PartPlan : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sizes_data()
    {
        QTest::addColumn<qint64>("fileSize");
        QTest::addColumn<qint64>("requested");
        QTest::addColumn<bool>("singlePut");
        QTest::addColumn<qint64>("partSize");
        QTest::addColumn<int>("partCount");
        QTest::newRow("empty file") << qint64(0) << 8 * MiB << true << 8 * MiB << 1;
        QTest::newRow("one byte") << qint64(1) << 8 * MiB << true << 8 * MiB << 1;
        QTest::newRow("below part size") << 8 * MiB - 1 << 8 * MiB << true << 8 * MiB << 1;
        QTest::newRow("exactly one part") << 8 * MiB << 8 * MiB << false << 8 * MiB << 1;
        QTest::newRow("one byte more") << 8 * MiB + 1 << 8 * MiB << false << 8 * MiB << 2;
        QTest::newRow("small request raised to 5 MiB") << 12 * MiB << MiB << false << 5 * MiB << 3;
        QTest::newRow("huge request lowered to 5 GiB") << 11 * GiB << 8 * GiB << false << 5 * GiB << 3;
        QTest::newRow("10,000 parts fit") << 10000 * 8 * MiB << 8 * MiB << false << 8 * MiB << 10000;
        QTest::newRow("grown past 10,000") << 10000 * 8 * MiB + 1 << 8 * MiB << false << 9 * MiB << 8889;
        QTest::newRow("100 GiB") << 100 * GiB << 8 * MiB << false << 11 * MiB << 9310;
        QTest::newRow("5 TiB") << 5 * TiB << 8 * MiB << false << 525 * MiB << 9987;
    }
    void sizes()
    {
        QFETCH(qint64, fileSize);
        QFETCH(qint64, requested);
        QFETCH(bool, singlePut);
        QFETCH(qint64, partSize);
        QFETCH(int, partCount);
        const auto plan = S3PartPlan::forFile(fileSize, requested);
        QVERIFY(plan);
        QCOMPARE(plan.value().isSinglePut(), singlePut);
        QCOMPARE(plan.value().partSize(), partSize);
        QCOMPARE(plan.value().partCount(), partCount);
        verifyCoversFile(plan.value());
    }

    void tooLargeOrNegative()
    {
        const auto tooLarge = S3PartPlan::forFile(5 * TiB + 1, 8 * MiB);
        QVERIFY(!tooLarge);
        QCOMPARE(tooLarge.failure().kind, S3Failure::Kind::InvalidInput);
        QVERIFY2(tooLarge.failure().userMessage.contains(QLatin1String("5 TiB")),
                 qPrintable(tooLarge.failure().userMessage));
        QVERIFY(!S3PartPlan::forFile(-1, 8 * MiB));
    }

    void randomSizesKeepTheRules()
    {
        const quint32 seed = QRandomGenerator::global()->generate();
        qInfo("seed %u", seed);
        QRandomGenerator random(seed);
        for (int i = 0; i < 2000; ++i) {
            const qint64 fileSize = qint64(random.generate64() % quint64(S3PartPlan::MaxObjectSize + 1));
            const qint64 requested = qint64(random.generate64() % quint64(8 * GiB));
            const auto plan = S3PartPlan::forFile(fileSize, requested);
            QVERIFY(plan);
            const S3PartPlan &p = plan.value();
            QVERIFY(p.partSize() >= S3PartPlan::MinPartSize && p.partSize() <= S3PartPlan::MaxPartSize);
            QVERIFY(p.partCount() >= 1 && p.partCount() <= S3PartPlan::MaxParts);
            QCOMPARE(p.isSinglePut(), fileSize < p.partSize());
            QCOMPARE(p.partOffset(p.partCount()) + p.partLength(p.partCount()), fileSize);
            QVERIFY(p.partLength(p.partCount()) > 0 || fileSize == 0);
        }
    }

    void etags()
    {
        // Independent of Md5Digest: QCryptographicHash computes the reference.
        const QList<QByteArray> parts{QByteArray(5 * MiB, 'a'), QByteArray(5 * MiB, 'b'), QByteArray("tail")};
        QList<QByteArray> md5s;
        QByteArray concatenated;
        for (const QByteArray &part : parts) {
            md5s.append(Md5Digest::of(part));
            QCOMPARE(md5s.last(), QCryptographicHash::hash(part, QCryptographicHash::Md5));
            concatenated += md5s.last();
        }
        QCOMPARE(S3Etag::ofMultipart(md5s),
                 QCryptographicHash::hash(concatenated, QCryptographicHash::Md5).toHex() + "-3");
        QCOMPARE(S3Etag::ofSinglePut(Md5Digest::of("")), QByteArray("d41d8cd98f00b204e9800998ecf8427e"));
        QCOMPARE(S3Etag::ofMultipart({Md5Digest::of("")}).right(2), QByteArray("-1"));
    }

    void etagComparison()
    {
        QCOMPARE(S3Etag::normalized("\"ABC-2\""), QByteArray("abc-2"));
        QCOMPARE(S3Etag::normalized(" W/\"abc\" "), QByteArray("abc"));
        QCOMPARE(S3Etag::normalized("&quot;abc&quot;"), QByteArray("abc"));
        QCOMPARE(S3Etag::quoted("abc"), QByteArray("\"abc\""));
        QCOMPARE(S3Etag::quoted("\"ABC\""), QByteArray("\"abc\""));
        QVERIFY(S3Etag::equal("\"abc-2\"", "ABC-2"));
        QVERIFY(!S3Etag::equal("abc-2", "abc-3"));
        QVERIFY(!S3Etag::equal("", ""));
        QVERIFY(!S3Etag::equal("\"\"", ""));
    }

    void resumeSendsOnlyWhatIsMissing()
    {
        const S3PartPlan plan =
            S3PartPlan::forFile(4 * 5 * MiB + 100, 5 * MiB).value(); // parts 1-4 full, 5: 100 B
        const QMap<int, QByteArray> journal{{1, "\"aa\""}, {2, "bb"}, {3, "cc"}, {5, "ee"}};
        const QList<S3PartInfo> server{
            {1, "aa", 5 * MiB, {}},     // as sent
            {2, "b0", 5 * MiB, {}},     // another ETag: sent again
            {3, "cc", 5 * MiB - 1, {}}, // another size: sent again
            {4, "dd", 5 * MiB, {}},     // held but not in the journal: verify locally
            {7, "zz", 5 * MiB, {}},     // beyond the plan: ignored
        };
        const S3Reconciliation result = S3PartReconciler::reconcile(plan, journal, server);
        QCOMPARE(result.toSend, (QList<int>{2, 3, 5}));
        QCOMPARE(result.toVerify, QList<int>{4});
        QCOMPARE(result.present.size(), 1);
        QCOMPARE(result.present[0].partNumber, 1);
        // Once part 4's range is hashed again and matches, it counts as present.
        QMap<int, QByteArray> verified = journal;
        verified.insert(4, "DD");
        QCOMPARE(S3PartReconciler::reconcile(plan, verified, server).present.size(), 2);
        QCOMPARE(S3PartReconciler::reconcile(plan, journal, {}).toSend, (QList<int>{1, 2, 3, 4, 5}));
    }
};

QTEST_GUILESS_MAIN(TestS3PartPlan)
#include "tst_s3_partplan.moc"
