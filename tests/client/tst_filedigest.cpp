// FileDigest: one pass gives the SHA-256 and the XXH3 of each chunk, whatever the chunk size is
// relative to the read buffer.
#include "ChunkHash.h"
#include "FileDigest.h"

#include <QCryptographicHash>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

class TestFileDigest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void chunkHashesMatchEachChunk_data()
    {
        QTest::addColumn<qint64>("fileSize");
        QTest::addColumn<qint64>("chunkSize");
        QTest::newRow("no chunk hashes") << qint64(3 << 20) << qint64(0);
        QTest::newRow("chunks smaller than the read buffer") << qint64(3 << 20) + 5 << qint64(300000);
        QTest::newRow("chunks across read buffers") << qint64(10 << 20) + 5 << qint64(3 << 20) + 7;
        QTest::newRow("exact multiple") << qint64(8 << 20) << qint64(2 << 20);
        QTest::newRow("one short chunk") << qint64(1000) << qint64(4 << 20);
        QTest::newRow("empty file") << qint64(0) << qint64(4 << 20);
    }
    void chunkHashesMatchEachChunk()
    {
        QFETCH(qint64, fileSize);
        QFETCH(qint64, chunkSize);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("f.bin"));
        QByteArray data(fileSize, Qt::Uninitialized);
        QRandomGenerator generator(42);
        for (char &c : data)
            c = char(generator.generate());
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(data), fileSize);
        file.close();

        const auto digest = FileDigest::ofFile(path, chunkSize);
        QVERIFY(digest);
        QCOMPARE(digest->sha256Hex, QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
        QCOMPARE(digest->chunkSize, chunkSize);
        QList<QByteArray> expected;
        for (qint64 offset = 0; chunkSize > 0 && offset < fileSize; offset += chunkSize) {
            const qint64 length = std::min(chunkSize, fileSize - offset);
            expected.append(
                ChunkChecksum::xxh3Hex(ChunkHash::of(data.constData() + offset, std::size_t(length))));
        }
        QCOMPARE(digest->chunkChecksums, expected);
        // S3's kind: the MD5 of each part.
        const auto md5 = FileDigest::ofFile(path, chunkSize, ChunkChecksumKind::Md5);
        QVERIFY(md5);
        for (qsizetype i = 0; i < md5->chunkChecksums.size(); ++i) {
            const qint64 offset = i * chunkSize;
            QCOMPARE(md5->chunkChecksums.at(i),
                     QCryptographicHash::hash(data.mid(offset, chunkSize), QCryptographicHash::Md5).toHex());
        }
        QCOMPARE(md5->chunkChecksums.size(), expected.size());
    }

    void unreadableFileIsNoDigest()
    {
        QVERIFY(!FileDigest::ofFile(QStringLiteral("/nonexistent/f.bin"), 1024));
    }
};

QTEST_GUILESS_MAIN(TestFileDigest)
#include "tst_filedigest.moc"
