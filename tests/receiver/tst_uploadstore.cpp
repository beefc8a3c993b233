#include "ServiceHarness.h"

#include "ChunkHash.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTest>
#include <thread>

using namespace multilane;

namespace {

QByteArray idOf(const ServiceHarness::Reply &reply)
{
    return reply.json.value(QStringLiteral("id")).toString().toLatin1();
}

QList<qint64> receivedOf(const ServiceHarness::Reply &reply)
{
    QList<qint64> received;
    for (const QJsonValue &value : reply.json.value(QStringLiteral("received")).toArray())
        received.append(value.toInteger());
    return received;
}

} // namespace

// Upload semantics through the service and LocalFolderStore: resume, chunks, complete, conflicts.
class TestUploadStore : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_harness = std::make_unique<ServiceHarness>();
        QVERIFY(m_harness->isValid());
    }

    void createIsIdempotent()
    {
        const auto first = m_harness->create(QStringLiteral("photos/a.jpg"), 10000, 4096);
        QCOMPARE(first.status, 201);
        QCOMPARE(idOf(first).size(), 32);
        QCOMPARE(first.json.value(QStringLiteral("chunkCount")).toInt(), 3);
        QVERIFY(receivedOf(first).isEmpty());
        QVERIFY(!first.json.contains(QStringLiteral("existing")));

        QCOMPARE(m_harness->putChunk(idOf(first), 1, ServiceHarness::testData(10000).mid(4096, 4096)).status,
                 200);
        // Same key, another chunk size: found, and the first chunk size stays.
        const auto again = m_harness->create(QStringLiteral("photos/a.jpg"), 10000, 8192);
        QCOMPARE(again.status, 200);
        QCOMPARE(idOf(again), idOf(first));
        QCOMPARE(again.json.value(QStringLiteral("chunkSize")).toInt(), 4096);
        QCOMPARE(receivedOf(again), QList<qint64>{1});
        // Another mtime is another upload.
        QVERIFY(idOf(m_harness->create(QStringLiteral("photos/a.jpg"), 10000, 4096, "rename", 5)) !=
                idOf(first));
    }

    void wrongHashIsRefusedAndNotHeld()
    {
        const QByteArray data = ServiceHarness::testData(4096);
        const QByteArray id = idOf(m_harness->create(QStringLiteral("h.bin"), 4096, 4096));
        QByteArray damaged = data;
        damaged[100] = char(damaged[100] ^ 1);
        const auto reply =
            m_harness->call("PUT", "/v1/uploads/" + id + "/chunks/0", damaged,
                            {{"x-chunk-hash", ChunkHash::toHeader(ChunkHash::of(data.constData(), 4096))}});
        QCOMPARE(reply.status, 422);
        QCOMPARE(reply.errorCode(), QByteArray("checksum_mismatch"));
        QVERIFY(receivedOf(m_harness->call("GET", "/v1/uploads/" + id)).isEmpty());
        QCOMPARE(m_harness->complete(id, ServiceHarness::sha256(data)).errorCode(), QByteArray("incomplete"));
    }

    void duplicateChunk()
    {
        const QByteArray data = ServiceHarness::testData(4096);
        const QByteArray id = idOf(m_harness->create(QStringLiteral("d.bin"), 4096, 4096));
        auto reply = m_harness->putChunk(id, 0, data);
        QCOMPARE(reply.status, 200);
        QVERIFY(!reply.json.contains(QStringLiteral("duplicate")));
        reply = m_harness->putChunk(id, 0, data);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.json.value(QStringLiteral("duplicate")).toBool(), true);
        QCOMPARE(reply.json.value(QStringLiteral("stored")).toBool(), true);
    }

    void completeBeforeAllChunks()
    {
        const QByteArray data = ServiceHarness::testData(5 * 1000);
        const QByteArray id = idOf(m_harness->create(QStringLiteral("i.bin"), data.size(), 1000));
        QCOMPARE(m_harness->putChunk(id, 1, data.mid(1000, 1000)).status, 200);
        QCOMPARE(m_harness->putChunk(id, 3, data.mid(3000, 1000)).status, 200);
        const auto reply = m_harness->complete(id, ServiceHarness::sha256(data));
        QCOMPARE(reply.status, 409);
        QCOMPARE(reply.errorCode(), QByteArray("incomplete"));
        const QJsonArray missing =
            reply.json.value(QStringLiteral("error")).toObject().value(QStringLiteral("missing")).toArray();
        QCOMPARE(missing, (QJsonArray{0, 2, 4}));
    }

    void completeTwiceAndCreateAfterDone()
    {
        const QByteArray data = ServiceHarness::testData(10000);
        const auto first = m_harness->upload(QStringLiteral("docs/c.bin"), data, 3000);
        QCOMPARE(first.status, 200);
        QCOMPARE(first.json.value(QStringLiteral("status")).toString(), QStringLiteral("stored"));
        QCOMPARE(m_harness->readStored(QStringLiteral("docs/c.bin")), data);
        const QByteArray id = idOf(m_harness->create(QStringLiteral("docs/c.bin"), data.size(), 3000));
        QVERIFY(id.isEmpty()); // a create for a finished key answers done, not an upload
        const auto done = m_harness->create(QStringLiteral("docs/c.bin"), data.size(), 3000);
        QCOMPARE(done.json.value(QStringLiteral("status")).toString(), QStringLiteral("done"));
        QCOMPARE(done.json.value(QStringLiteral("sha256")).toString().toLatin1(),
                 ServiceHarness::sha256(data));

        const QDir uploads(m_harness->storage() + QStringLiteral("/.multilane/uploads"));
        const QStringList doneFiles = uploads.entryList({QStringLiteral("*.done")}, QDir::Files);
        QCOMPARE(doneFiles.size(), 1);
        QCOMPARE(uploads.entryList(QDir::Files), doneFiles); // .json, .part, .chunks are gone
        const QByteArray doneId = doneFiles.first().chopped(5).toLatin1();
        const auto again = m_harness->complete(doneId, ServiceHarness::sha256(data));
        QCOMPARE(again.status, 200);
        QCOMPARE(again.json, first.json);
        // A late duplicate chunk of the finished upload is harmless.
        QCOMPARE(m_harness->putChunk(doneId, 0, data.left(3000)).status, 200);
        QCOMPARE(m_harness->readStored(QStringLiteral("docs/c.bin")), data);
    }

    void shaMismatchResetsEveryChunk()
    {
        const QByteArray data = ServiceHarness::testData(9000);
        const QByteArray id = idOf(m_harness->create(QStringLiteral("s.bin"), data.size(), 3000));
        for (int index = 0; index < 3; ++index)
            QCOMPARE(m_harness->putChunk(id, index, data.mid(index * 3000, 3000)).status, 200);
        const auto reply = m_harness->complete(id, QByteArray(64, '0'));
        QCOMPARE(reply.status, 422);
        QCOMPARE(reply.errorCode(), QByteArray("checksum_mismatch"));
        QVERIFY(receivedOf(m_harness->call("GET", "/v1/uploads/" + id)).isEmpty());
        QVERIFY(!QFile::exists(m_harness->storage() + QStringLiteral("/s.bin")));
    }

    void conflictPolicies()
    {
        const QByteArray original = ServiceHarness::testData(5000, 1);
        const QByteArray newer = ServiceHarness::testData(5000, 2);
        QCOMPARE(m_harness->upload(QStringLiteral("a.txt"), original, 2048).status, 200);

        // existing: size and, since sizes are equal, the SHA-256 of what is there.
        const auto created = m_harness->create(QStringLiteral("a.txt"), 5000, 2048, "rename", 2);
        const QJsonObject existing = created.json.value(QStringLiteral("existing")).toObject();
        QCOMPARE(existing.value(QStringLiteral("size")).toInt(), 5000);
        QCOMPARE(existing.value(QStringLiteral("sha256")).toString().toLatin1(),
                 ServiceHarness::sha256(original));
        const auto otherSize = m_harness->create(QStringLiteral("a.txt"), 7000, 2048, "rename", 3);
        QCOMPARE(
            otherSize.json.value(QStringLiteral("existing")).toObject().value(QStringLiteral("size")).toInt(),
            5000);
        QVERIFY(
            !otherSize.json.value(QStringLiteral("existing")).toObject().contains(QStringLiteral("sha256")));

        auto reply = m_harness->upload(QStringLiteral("a.txt"), newer, 2048, "rename", 6);
        QCOMPARE(reply.json.value(QStringLiteral("path")).toString(), QStringLiteral("a (1).txt"));
        QCOMPARE(m_harness->readStored(QStringLiteral("a (1).txt")), newer);
        QCOMPARE(m_harness->readStored(QStringLiteral("a.txt")), original);

        reply = m_harness->create(QStringLiteral("a.txt"), 5000, 2048, "skip", 4);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.json.value(QStringLiteral("status")).toString(), QStringLiteral("skipped"));

        reply = m_harness->create(QStringLiteral("a.txt"), 5000, 2048, "fail", 5);
        QCOMPARE(reply.status, 409);
        QCOMPARE(reply.errorCode(), QByteArray("conflict"));

        reply = m_harness->upload(QStringLiteral("a.txt"), ServiceHarness::testData(5000, 3), 2048,
                                  "overwrite", 7);
        QCOMPARE(reply.json.value(QStringLiteral("status")).toString(), QStringLiteral("stored"));
        QCOMPARE(m_harness->readStored(QStringLiteral("a.txt")), ServiceHarness::testData(5000, 3));

        // Uploading the identical bytes again stores nothing new, whatever the policy.
        reply =
            m_harness->upload(QStringLiteral("a.txt"), ServiceHarness::testData(5000, 3), 2048, "rename", 8);
        QCOMPARE(reply.json.value(QStringLiteral("status")).toString(), QStringLiteral("skipped"));
        QVERIFY(!QFile::exists(m_harness->storage() + QStringLiteral("/a (2).txt")));
    }

    void conflictAppearingBeforeCompleteKeepsTheUpload()
    {
        const QByteArray data = ServiceHarness::testData(3000);
        const QByteArray id = idOf(m_harness->create(QStringLiteral("late.txt"), data.size(), 3000, "fail"));
        QCOMPARE(m_harness->putChunk(id, 0, data).status, 200);
        QCOMPARE(m_harness->call("PUT", "/v1/files/late.txt", QByteArray("someone else")).status, 201);
        QCOMPARE(m_harness->complete(id, ServiceHarness::sha256(data)).errorCode(), QByteArray("conflict"));
        QVERIFY(QFile::remove(m_harness->storage() + QStringLiteral("/late.txt")));
        QCOMPARE(m_harness->complete(id, ServiceHarness::sha256(data)).status, 200);
        QCOMPARE(m_harness->readStored(QStringLiteral("late.txt")), data);
    }

    void identicalFileAppearingBeforeCompleteIsKept_data()
    {
        QTest::addColumn<QByteArray>("policy");
        for (const char *policy : {"rename", "overwrite", "skip", "fail"})
            QTest::newRow(policy) << QByteArray(policy);
    }

    void identicalFileAppearingBeforeCompleteIsKept()
    {
        // Whatever the policy, the same bytes put there meanwhile are the file: nothing is
        // renamed, replaced or refused. Into folders made on the way, and into the same again.
        QFETCH(QByteArray, policy);
        const QByteArray data = ServiceHarness::testData(3000, 9);
        for (int round = 0; round < 2; ++round) {
            const QString path = QStringLiteral("new/folders/same%1.txt").arg(round);
            const QByteArray id = idOf(m_harness->create(path, data.size(), 3000, policy));
            QCOMPARE(m_harness->putChunk(id, 0, data).status, 200);
            QCOMPARE(m_harness->call("PUT", "/v1/files/" + path.toUtf8(), data).status, 201);
            const auto reply = m_harness->complete(id, ServiceHarness::sha256(data));
            QCOMPARE(reply.status, 200);
            QCOMPARE(reply.json.value(QStringLiteral("status")).toString(), QStringLiteral("skipped"));
            QCOMPARE(m_harness->readStored(path), data);
            QCOMPARE(
                QDir(m_harness->storage() + QStringLiteral("/new/folders")).entryList(QDir::Files).size(),
                round + 1);
        }
    }

    void aFileWhereAFolderGoesIsAConflict()
    {
        QCOMPARE(m_harness->call("PUT", "/v1/files/blocked", QByteArray("a file")).status, 201);
        const auto reply = m_harness->call("PUT", "/v1/files/blocked/inside.txt", QByteArray("x"));
        QCOMPARE(reply.status, 409);
        QCOMPARE(reply.errorCode(), QByteArray("conflict"));
        QCOMPARE(m_harness->readStored(QStringLiteral("blocked")), QByteArray("a file"));
    }

    void emptyFile()
    {
        const auto reply = m_harness->upload(QStringLiteral("empty"), QByteArray(""), 1024);
        QCOMPARE(reply.status, 200);
        QVERIFY(QFile::exists(m_harness->storage() + QStringLiteral("/empty")));
        QCOMPARE(QFileInfo(m_harness->storage() + QStringLiteral("/empty")).size(), 0);
    }

    void abort()
    {
        const QByteArray id = idOf(m_harness->create(QStringLiteral("gone.bin"), 5000, 1000));
        QCOMPARE(m_harness->call("DELETE", "/v1/uploads/" + id).status, 200);
        QCOMPARE(m_harness->call("GET", "/v1/uploads/" + id).errorCode(), QByteArray("no_such_upload"));
        QCOMPARE(m_harness->call("DELETE", "/v1/uploads/" + id).status, 404);
        QCOMPARE(
            QDir(m_harness->storage() + QStringLiteral("/.multilane/uploads")).entryList(QDir::Files).size(),
            0);
    }

    void concurrentWritersOfOneChunk()
    {
        // Two threads opening the records separately take separate OFD locks, as two ports or two
        // processes would: one writes, the other waits and then finds the chunk held.
        const QByteArray data = ServiceHarness::testData(4 << 20);
        const QByteArray id = idOf(m_harness->create(QStringLiteral("race.bin"), data.size(), data.size()));
        ServiceHarness::Reply replies[2];
        std::thread first([&] { replies[0] = m_harness->putChunk(id, 0, data); });
        std::thread second([&] { replies[1] = m_harness->putChunk(id, 0, data); });
        first.join();
        second.join();
        QCOMPARE(replies[0].status, 200);
        QCOMPARE(replies[1].status, 200);
        const int duplicates = int(replies[0].json.value(QStringLiteral("duplicate")).toBool()) +
                               int(replies[1].json.value(QStringLiteral("duplicate")).toBool());
        QCOMPARE(duplicates, 1);
        QCOMPARE(m_harness->complete(id, ServiceHarness::sha256(data)).status, 200);
        QCOMPARE(m_harness->readStored(QStringLiteral("race.bin")), data);
    }

    void numberedNames()
    {
        QCOMPARE(FilePlacer::numberedName(QStringLiteral("a/b.txt"), 2), QStringLiteral("a/b (2).txt"));
        QCOMPARE(FilePlacer::numberedName(QStringLiteral("a.b/c"), 1), QStringLiteral("a.b/c (1)"));
        QCOMPARE(FilePlacer::numberedName(QStringLiteral(".bashrc"), 1), QStringLiteral(".bashrc (1)"));
        QCOMPARE(FilePlacer::numberedName(QStringLiteral("x.tar.gz"), 3), QStringLiteral("x.tar (3).gz"));
    }

private:
    std::unique_ptr<ServiceHarness> m_harness;
};

QTEST_GUILESS_MAIN(TestUploadStore)
#include "tst_uploadstore.moc"
