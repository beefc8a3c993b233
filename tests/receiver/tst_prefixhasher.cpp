#include "ServiceHarness.h"

#include "ChunkHash.h"
#include "ChunkRecordFile.h"

#include <QFile>
#include <QTest>
#include <fcntl.h>
#include <unistd.h>

using namespace multilane;

namespace {

QByteArray idOf(const ServiceHarness::Reply &reply)
{
    return reply.json.value(QStringLiteral("id")).toString().toLatin1();
}

} // namespace

// The SHA-256 prefix that saves complete from hashing the whole .part, and the whole-file route's
// hashing thread: both must give exactly the SHA-256 of the bytes on disk, whatever happened.
class TestPrefixHasher : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_harness = std::make_unique<ServiceHarness>();
        QVERIFY(m_harness->isValid());
    }

    void inOrderChunksAreHashedAhead()
    {
        const QByteArray data = ServiceHarness::testData(10 * 1000 + 7);
        const QByteArray id = idOf(m_harness->create(QStringLiteral("p.bin"), data.size(), 1000));
        for (int index = 0; index < 5; ++index)
            QCOMPARE(m_harness->putChunk(id, index, data.mid(index * 1000, 1000)).status, 200);
        hasher().waitIdle();
        QCOMPARE(hasher().coveredBytes(id), 5000);
        for (int index = 5; index < 11; ++index)
            QCOMPARE(m_harness->putChunk(id, index, data.mid(index * 1000, 1000)).status, 200);
        hasher().waitIdle();
        QCOMPARE(hasher().coveredBytes(id), data.size());
        QCOMPARE(m_harness->complete(id, ServiceHarness::sha256(data)).status, 200);
        QCOMPARE(hasher().coveredBytes(id), 0); // taken by complete
        QCOMPARE(m_harness->readStored(QStringLiteral("p.bin")), data);
    }

    void gapStopsThePrefixUntilFilled()
    {
        const QByteArray data = ServiceHarness::testData(4000, 2);
        const QByteArray id = idOf(m_harness->create(QStringLiteral("g.bin"), data.size(), 1000));
        for (int index : {0, 2, 3})
            QCOMPARE(m_harness->putChunk(id, index, data.mid(index * 1000, 1000)).status, 200);
        hasher().waitIdle();
        QCOMPARE(hasher().coveredBytes(id), 1000);
        QCOMPARE(m_harness->putChunk(id, 1, data.mid(1000, 1000)).status, 200);
        hasher().waitIdle();
        QCOMPARE(hasher().coveredBytes(id), 4000);
        QCOMPARE(m_harness->complete(id, ServiceHarness::sha256(data)).status, 200);
    }

    void rewrittenChunkVoidsThePrefix()
    {
        const QByteArray first = ServiceHarness::testData(3000, 3);
        QByteArray second = first;
        second[10] = char(second[10] ^ 0x55);
        const QByteArray id = idOf(m_harness->create(QStringLiteral("r.bin"), first.size(), 1000));
        for (int index = 0; index < 3; ++index)
            QCOMPARE(m_harness->putChunk(id, index, first.mid(index * 1000, 1000)).status, 200);
        hasher().waitIdle();
        QCOMPARE(hasher().coveredBytes(id), 3000);
        QCOMPARE(m_harness->putChunk(id, 0, second.left(1000)).status, 200); // different bytes
        hasher().waitIdle();
        // The old prefix is gone; the new one covers the new bytes.
        QCOMPARE(m_harness->complete(id, ServiceHarness::sha256(first)).errorCode(),
                 QByteArray("checksum_mismatch"));
        for (int index = 0; index < 3; ++index)
            QCOMPARE(m_harness->putChunk(id, index, second.mid(index * 1000, 1000)).status, 200);
        QCOMPARE(m_harness->complete(id, ServiceHarness::sha256(second)).status, 200);
        QCOMPARE(m_harness->readStored(QStringLiteral("r.bin")), second);
    }

    void rewriteByAnotherProcessIsNoticedAtComplete()
    {
        // Another receiver process rewrites chunk 0 behind this one's back: its cached prefix no
        // longer matches the records, so complete must hash from disk instead of trusting it.
        const QByteArray first = ServiceHarness::testData(2000, 4);
        QByteArray second = first;
        second[1] = char(second[1] ^ 1);
        const QByteArray id = idOf(m_harness->create(QStringLiteral("x.bin"), first.size(), 1000));
        for (int index = 0; index < 2; ++index)
            QCOMPARE(m_harness->putChunk(id, index, first.mid(index * 1000, 1000)).status, 200);
        hasher().waitIdle();
        QCOMPARE(hasher().coveredBytes(id), 2000);

        const QByteArray uploads = QFile::encodeName(m_harness->storage()) + "/.multilane/uploads/" + id;
        const int part = ::open(QByteArray(uploads + ".part").constData(), O_WRONLY);
        QVERIFY(part >= 0);
        QCOMPARE(::pwrite(part, second.constData(), 1000, 0), ssize_t(1000));
        ::close(part);
        ChunkRecordFile records;
        QCOMPARE(records.open(uploads + ".chunks"), 0);
        QCOMPARE(records.write(0, {ChunkHash::of(second.constData(), 1000), true}), 0);

        QCOMPARE(m_harness->complete(id, ServiceHarness::sha256(second)).status, 200);
        QCOMPARE(m_harness->readStored(QStringLiteral("x.bin")), second);
    }

    void abortForgetsThePrefix()
    {
        const QByteArray data = ServiceHarness::testData(2000, 5);
        const QByteArray id = idOf(m_harness->create(QStringLiteral("a.bin"), data.size(), 1000));
        QCOMPARE(m_harness->putChunk(id, 0, data.left(1000)).status, 200);
        hasher().waitIdle();
        QCOMPARE(hasher().coveredBytes(id), 1000);
        QCOMPARE(m_harness->call("DELETE", "/v1/uploads/" + id).status, 200);
        QCOMPARE(hasher().coveredBytes(id), 0);
    }

    void wholeFileOnTheHashingThread()
    {
        // Bigger than one 1 MiB buffer, not a multiple of it: the pipelined path.
        const QByteArray data = ServiceHarness::testData(5 * (1 << 20) + 12345, 6);
        auto reply = m_harness->call("PUT", "/v1/files/big/whole.bin", data,
                                     {{"x-content-sha256", ServiceHarness::sha256(data)}});
        QCOMPARE(reply.status, 201);
        QCOMPARE(reply.json.value(QStringLiteral("sha256")).toString().toLatin1(),
                 ServiceHarness::sha256(data));
        QCOMPARE(m_harness->readStored(QStringLiteral("big/whole.bin")), data);
        reply = m_harness->call("PUT", "/v1/files/big/wrong.bin", data,
                                {{"x-content-sha256", QByteArray(64, 'a')}});
        QCOMPARE(reply.errorCode(), QByteArray("checksum_mismatch"));
        QVERIFY(!QFile::exists(m_harness->storage() + QStringLiteral("/big/wrong.bin")));
    }

private:
    PrefixHasher &hasher() { return m_harness->store().prefixHasher(); }

    std::unique_ptr<ServiceHarness> m_harness;
};

QTEST_GUILESS_MAIN(TestPrefixHasher)
#include "tst_prefixhasher.moc"
