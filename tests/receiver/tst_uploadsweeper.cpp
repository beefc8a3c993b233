#include "ServiceHarness.h"

#include "ChunkRecordFile.h"

#include <QDir>
#include <QFile>
#include <QTest>
#include <fcntl.h>
#include <sys/stat.h>

using namespace multilane;
using namespace std::chrono_literals;

namespace {

QByteArray idOf(const ServiceHarness::Reply &reply)
{
    return reply.json.value(QStringLiteral("id")).toString().toLatin1();
}

// Sets a file's mtime to `age` before `now`; the sweeper's clock is the one we pass, never a sleep.
bool age(const QByteArray &path, UploadSweeper::Clock::time_point now, std::chrono::seconds howOld)
{
    const auto when = std::chrono::duration_cast<std::chrono::seconds>((now - howOld).time_since_epoch());
    const timespec times[2] = {{when.count(), 0}, {when.count(), 0}};
    return ::utimensat(AT_FDCWD, path.constData(), times, 0) == 0;
}

} // namespace

// Expiry of unfinished uploads, .done records and leftovers (issue #3), by file ages.
class TestUploadSweeper : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_harness = std::make_unique<ServiceHarness>();
        QVERIFY(m_harness->isValid());
        m_now = UploadSweeper::Clock::now();
    }

    void untouchedUploadsExpireOthersStay()
    {
        const QByteArray stale = startUpload(QStringLiteral("old/stale.bin"), 1);
        const QByteArray fresh = startUpload(QStringLiteral("new/fresh.bin"), 2);
        const QByteArray halfStale = startUpload(QStringLiteral("half.bin"), 3);
        ageUpload(stale, 8 * 24h);
        ageUpload(halfStale, 8 * 24h);
        QVERIFY(age(uploadFile(halfStale, ".part"), m_now, 1h)); // a chunk was written an hour ago

        const QStringList log = sweep(7 * 24h);
        QCOMPARE(log.size(), 1);
        QVERIFY2(log.first().contains(QStringLiteral("old/stale.bin")) &&
                     log.first().contains(QStringLiteral("1 of 3 chunks")),
                 qPrintable(log.first()));
        for (const char *suffix : {".json", ".part", ".chunks"}) {
            QVERIFY(!QFile::exists(QFile::decodeName(uploadFile(stale, suffix))));
            QVERIFY(QFile::exists(QFile::decodeName(uploadFile(fresh, suffix))));
            QVERIFY(QFile::exists(QFile::decodeName(uploadFile(halfStale, suffix))));
        }
        QCOMPARE(m_harness->call("GET", "/v1/uploads/" + stale).errorCode(), QByteArray("no_such_upload"));
        QCOMPARE(m_harness->putChunk(stale, 0, ServiceHarness::testData(3000, 1).left(1000)).status, 404);
        QCOMPARE(m_harness->call("GET", "/v1/uploads/" + fresh).status, 200);
    }

    void resumingAnUploadTouchesIt()
    {
        const QByteArray id = startUpload(QStringLiteral("resumed.bin"), 4);
        ageUpload(id, 30 * 24h);
        QCOMPARE(m_harness->create(QStringLiteral("resumed.bin"), 3000, 1000).status, 200); // found
        m_now = UploadSweeper::Clock::now();
        QVERIFY(sweep(7 * 24h).isEmpty());
        QCOMPARE(m_harness->call("GET", "/v1/uploads/" + id).status, 200);
    }

    void uploadHeldByAWriterIsSkipped()
    {
        const QByteArray id = startUpload(QStringLiteral("busy.bin"), 5);
        ageUpload(id, 8 * 24h);
        {
            ChunkRecordFile writer; // what a chunk writer in any process holds
            QCOMPARE(writer.open(uploadFile(id, ".chunks")), 0);
            QCOMPARE(writer.lockRecord(2), 0);
            QVERIFY(sweep(7 * 24h).isEmpty());
            QCOMPARE(m_harness->call("GET", "/v1/uploads/" + id).status, 200);
        }
        QCOMPARE(sweep(7 * 24h).size(), 1);
    }

    void doneRecordsExpireFinishedFilesNever()
    {
        const QByteArray data = ServiceHarness::testData(3000, 6);
        QCOMPARE(m_harness->upload(QStringLiteral("kept/file.bin"), data, 1000).status, 200);
        const QStringList done = uploadsDir().entryList({QStringLiteral("*.done")}, QDir::Files);
        QCOMPARE(done.size(), 1);
        const QByteArray donePath = QFile::encodeName(uploadsDir().filePath(done.first()));
        QVERIFY(sweep(7 * 24h).isEmpty());
        QVERIFY(age(donePath, m_now, 8 * 24h));
        QVERIFY(age(QFile::encodeName(m_harness->storage()) + "/kept/file.bin", m_now, 400 * 24h));
        const QStringList log = sweep(7 * 24h);
        QCOMPARE(log.size(), 1);
        QVERIFY2(log.first().contains(QStringLiteral("kept/file.bin")), qPrintable(log.first()));
        QVERIFY(!QFile::exists(QFile::decodeName(donePath)));
        QCOMPARE(m_harness->readStored(QStringLiteral("kept/file.bin")), data);
    }

    void leftoverTemporaryFiles()
    {
        const QByteArray old = QFile::encodeName(uploadsDir().path()) + "/put.tmp-123-abc.part";
        const QByteArray recent = QFile::encodeName(uploadsDir().path()) + "/put.tmp-124-def.part";
        const QByteArray oldRecord = QFile::encodeName(uploadsDir().path()) + "/0123.json.tmp-9-x";
        for (const QByteArray &path : {old, recent, oldRecord}) {
            QFile file(QFile::decodeName(path));
            QVERIFY(file.open(QIODevice::WriteOnly));
        }
        QVERIFY(age(old, m_now, 4h));
        QVERIFY(age(oldRecord, m_now, 4h));
        QVERIFY(age(recent, m_now, 1h)); // a PUT still running writes far more often than that
        // Leftovers go even when uploads never expire.
        QCOMPARE(sweep(0s).size(), 2);
        QVERIFY(!QFile::exists(QFile::decodeName(old)));
        QVERIFY(!QFile::exists(QFile::decodeName(oldRecord)));
        QVERIFY(QFile::exists(QFile::decodeName(recent)));
    }

    void zeroMeansNever()
    {
        const QByteArray id = startUpload(QStringLiteral("forever.bin"), 7);
        ageUpload(id, 3650 * 24h);
        QVERIFY(sweep(0s).isEmpty());
        QCOMPARE(m_harness->call("GET", "/v1/uploads/" + id).status, 200);
    }

private:
    QDir uploadsDir() const { return QDir(m_harness->storage() + QStringLiteral("/.multilane/uploads")); }
    QByteArray uploadFile(const QByteArray &id, const char *suffix) const
    {
        return QFile::encodeName(uploadsDir().path()) + '/' + id + suffix;
    }

    // An upload of 3 chunks with chunk 0 held.
    QByteArray startUpload(const QString &path, int seed)
    {
        const QByteArray data = ServiceHarness::testData(3000, seed);
        const QByteArray id = idOf(m_harness->create(path, data.size(), 1000));
        if (m_harness->putChunk(id, 0, data.left(1000)).status != 200)
            return {};
        return id;
    }

    void ageUpload(const QByteArray &id, std::chrono::seconds howOld)
    {
        for (const char *suffix : {".json", ".part", ".chunks"})
            QVERIFY(age(uploadFile(id, suffix), m_now, howOld));
    }

    QStringList sweep(std::chrono::seconds expireAfter)
    {
        // The store's background prefix hasher holds a chunk's lock while it hashes that chunk, and
        // a sweep that meets a held lock rightly leaves the upload for the next sweep. On a busy
        // machine the hasher could still be at the chunk a test stored a moment ago (one full run
        // in many): let it finish first.
        m_harness->store().prefixHasher().waitIdle();
        return m_harness->store().sweepExpired(expireAfter, m_now).lines;
    }

    std::unique_ptr<ServiceHarness> m_harness;
    UploadSweeper::Clock::time_point m_now;
};

QTEST_GUILESS_MAIN(TestUploadSweeper)
#include "tst_uploadsweeper.moc"
