#include "ChunkHash.h"
#include "Sha256.h"

#include <QTemporaryFile>
#include <QTest>

using namespace multilane;

// ChunkHash (XXH3-64) and Sha256 against known vectors, streaming against one-shot.
class TestHashes : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void xxh3KnownValues()
    {
        // Reference values from xxhsum -H3 (XXH3_64bits, seed 0).
        QCOMPARE(ChunkHash::of("", 0), Q_UINT64_C(0x2d06800538d394c2));
        QCOMPARE(ChunkHash::of("abc", 3), Q_UINT64_C(0x78af5f94892f3950));
    }

    void streamingEqualsOneShot()
    {
        QByteArray data(1 << 20, Qt::Uninitialized);
        for (qsizetype i = 0; i < data.size(); ++i)
            data[i] = char(i * 7 + (i >> 9));
        ChunkHash hash;
        for (qsizetype done = 0; done < data.size(); done += 4093)
            hash.addData(data.constData() + done, std::size_t(qMin<qsizetype>(4093, data.size() - done)));
        QCOMPARE(hash.value(), ChunkHash::of(data.constData(), std::size_t(data.size())));
        hash.reset();
        QCOMPARE(hash.value(), ChunkHash::of("", 0));
    }

    void headerRoundTrip_data()
    {
        QTest::addColumn<quint64>("value");
        QTest::newRow("zero") << quint64(0);
        QTest::newRow("small") << quint64(0xabc);
        QTest::newRow("max") << ~quint64(0);
        QTest::newRow("leading zero nibble") << Q_UINT64_C(0x0123456789abcdef);
    }

    void headerRoundTrip()
    {
        QFETCH(quint64, value);
        const QByteArray header = ChunkHash::toHeader(value);
        QVERIFY(header.startsWith("xxh3="));
        QCOMPARE(header.size(), 5 + 16);
        QCOMPARE(ChunkHash::fromHeader(header), std::optional<std::uint64_t>(value));
    }

    void headerRejectsGarbage_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("no prefix") << QByteArray("0123456789abcdef");
        QTest::newRow("other algorithm") << QByteArray("crc32=0123456789abcdef");
        QTest::newRow("short") << QByteArray("xxh3=0123");
        QTest::newRow("long") << QByteArray("xxh3=0123456789abcdef0");
        QTest::newRow("not hex") << QByteArray("xxh3=0123456789abcdeg");
        // Found by fuzz_protocol_parsers: toULongLong took these as other hashes.
        QTest::newRow("sign") << QByteArray("xxh3=+123456789abcdef");
        QTest::newRow("0x") << QByteArray("xxh3=0x23456789abcdef");
        QTest::newRow("inner space") << QByteArray("xxh3= 123456789abcdef");
        QTest::newRow("nul") << QByteArray("xxh3=0123456\0\0\0\0\0\0\0\0f", 21);
    }

    void headerRejectsGarbage()
    {
        QFETCH(QByteArray, header);
        QVERIFY(!ChunkHash::fromHeader(header).has_value());
    }

    void sha256KnownVectors()
    {
        Sha256 empty;
        QCOMPARE(empty.hexDigest(),
                 QByteArray("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        Sha256 abc;
        abc.addData(QByteArray("abc"));
        QCOMPARE(abc.hexDigest(),
                 QByteArray("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        Sha256 split; // the same 448-bit NIST vector fed in two pieces
        split.addData(QByteArray("abcdbcdecdefdefgefghfghighij"));
        split.addData(QByteArray("hijkijkljklmklmnlmnomnopnopq"));
        QCOMPARE(split.hexDigest(),
                 QByteArray("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    }

    void sha256OfFile()
    {
        QTemporaryFile file;
        QVERIFY(file.open());
        file.write(QByteArray(3 << 20, 'a')); // more than one internal read
        file.close();
        Sha256 expected;
        expected.addData(QByteArray(3 << 20, 'a'));
        QCOMPARE(Sha256::ofFile(file.fileName()), std::optional<QByteArray>(expected.hexDigest()));
        QVERIFY(!Sha256::ofFile(file.fileName() + QStringLiteral(".missing")).has_value());
    }

    void isHexDigest()
    {
        QVERIFY(Sha256::isHexDigest(QByteArray(64, 'a')));
        QVERIFY(!Sha256::isHexDigest(QByteArray(64, 'A')));
        QVERIFY(!Sha256::isHexDigest(QByteArray(63, 'a')));
        QVERIFY(!Sha256::isHexDigest(QByteArray(64, 'g')));
    }
};

QTEST_GUILESS_MAIN(TestHashes)
#include "tst_hashes.moc"
