#include "ResumeJournal.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstdio>
#include <sys/prctl.h>
#include <sys/stat.h>

using namespace multilane;

namespace {

// Set in the environment of the child that appends acks until it is killed (see main()).
const char WriterEnv[] = "MULTILANE_TEST_JOURNAL_WRITER";
constexpr int WriterReadyAt = 1000;

SourceFile sourceFile(const QString &name, qint64 size = 1000)
{
    return {QStringLiteral("/data/") + name, QStringLiteral("dest/") + name, size, 1700000000000 + size};
}

JournalBatch sampleBatch()
{
    JournalBatch batch;
    Endpoint first;
    first.url = QUrl(QStringLiteral("http://10.0.0.5:9101/multilane"));
    first.token = "s3cr\"et\\token";
    first.weight = 3;
    first.maxConnections = 4;
    Endpoint second;
    second.url = QUrl(QStringLiteral("http://[::1]:9102"));
    batch.endpoints = {first, second};
    batch.connections = 12;
    batch.chunkSize = 8 * 1024 * 1024;
    batch.onConflict = ConflictPolicy::Overwrite;
    batch.destination = QStringLiteral("backups/2024 é");
    return batch;
}

// Every field of a snapshot but the warnings, one line per batch or file, to compare states.
QString describe(const ResumeJournal::Snapshot &snapshot)
{
    QStringList lines;
    for (const JournalBatch &batch : snapshot.batches) {
        QStringList endpoints;
        for (const Endpoint &endpoint : batch.endpoints) {
            endpoints.append(endpoint.url.toString() + u' ' + QString::fromLatin1(endpoint.token.toHex()) +
                             u' ' + QString::number(endpoint.weight) + u' ' +
                             QString::number(endpoint.maxConnections));
        }
        lines.append(QStringLiteral("batch %1 %2 [%3] %4 %5 %6 %7")
                         .arg(batch.id)
                         .arg(batch.createdMs)
                         .arg(endpoints.join(u','))
                         .arg(batch.connections)
                         .arg(batch.chunkSize)
                         .arg(QString::fromLatin1(conflictPolicyName(batch.onConflict)), batch.destination));
    }
    for (const JournalFile &file : snapshot.files) {
        QStringList chunks;
        for (int chunk : file.acknowledgedChunks)
            chunks.append(QString::number(chunk));
        lines.append(QStringLiteral("file %1 %2 %3 %4 %5 %6 %7 %8 [%9]")
                         .arg(file.batchId, file.key, file.source.localPath(), file.source.destinationPath())
                         .arg(file.source.size)
                         .arg(file.source.mtimeMs)
                         .arg(file.uploadId)
                         .arg(file.chunkSize)
                         .arg(chunks.join(u',')));
    }
    return lines.join(u'\n');
}

// The error text, empty on success: so a failing QCOMPARE prints what went wrong.
QString errorOf(const std::optional<QString> &error)
{
    return error.value_or(QString());
}

qint64 fileSize(const QString &path)
{
    return QFileInfo(path).size();
}

int modeOf(const QString &path)
{
    struct stat info {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return -1;
    return int(info.st_mode & 07777);
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

// A log as an upload writes it, with the size and expected state after each record.
struct RecordedLog {
    QByteArray bytes;
    QList<qint64> boundaries; // boundaries[k]: size after k records
    QStringList states;       // states[k]: describe() of the state after k records
};

RecordedLog recordRealisticLog(const QString &directory)
{
    RecordedLog log;
    ResumeJournal journal(directory);
    if (journal.open())
        return log;
    const QString path = journal.logPath();
    log.boundaries.append(fileSize(path));
    log.states.append(describe(journal.state()));
    const auto step = [&] {
        if (fileSize(path) == log.boundaries.constLast())
            return;
        log.boundaries.append(fileSize(path));
        log.states.append(describe(journal.state()));
    };
    const QString first = journal.addBatch(sampleBatch());
    step();
    QStringList keys;
    for (int i = 0; i < 4; ++i) {
        keys.append(*journal.addFile(first, sourceFile(QStringLiteral("f%1.bin").arg(i), 40000 + i)));
        step();
    }
    journal.setUpload(keys[0], QStringLiteral("u-0"), 8192);
    step();
    journal.setUpload(keys[1], QStringLiteral("u-1"), 8192);
    step();
    for (int chunk : {0, 2, 1, 3, 4}) {
        journal.acknowledgeChunk(keys[0], chunk);
        step();
        journal.acknowledgeChunk(keys[1], chunk);
        step();
    }
    journal.endFile(keys[2]);
    step();
    journal.setUpload(keys[1], QStringLiteral("u-1b"), 8192); // the receiver lost it: new id
    step();
    journal.acknowledgeChunk(keys[1], 0);
    step();
    const QString second = journal.addBatch(sampleBatch());
    step();
    journal.addFile(second, sourceFile(QStringLiteral("f0.bin"), 50000)); // replaces keys[0]
    step();
    journal.endFile(keys[3]);
    step();
    journal.acknowledgeChunk(keys[1], 1);
    step();
    QFile file(path);
    if (file.open(QIODevice::ReadOnly))
        log.bytes = file.readAll();
    return log;
}

// The child's side of killedWhileAppending: acks forever until the parent kills it.
int runWriter(const QString &directory)
{
    ::prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlive a crashed test
    ResumeJournal journal(directory);
    if (const auto error = journal.open()) {
        std::fprintf(stderr, "%s\n", qPrintable(*error));
        return 1;
    }
    const QString batch = journal.addBatch(sampleBatch());
    const QString key = *journal.addFile(batch, sourceFile(QStringLiteral("big.iso"), qint64(1) << 40));
    journal.setUpload(key, QStringLiteral("upload-1"), 1 << 20);
    // Bounded so that a lost parent cannot fill the disk (~50 MB at most).
    for (int chunk = 0; chunk < 1000000; ++chunk) {
        journal.acknowledgeChunk(key, chunk);
        if (chunk + 1 == WriterReadyAt) {
            std::printf("wrote %d\n", WriterReadyAt);
            std::fflush(stdout);
        }
    }
    return 0;
}

} // namespace

class TestResumeJournal : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void checksumIsCrc32()
    {
        QCOMPARE(ResumeJournal::checksum("123456789"), 0xCBF43926u);
        QCOMPARE(ResumeJournal::checksum(""), 0u);
    }

    void defaultDirectoryFollowsXdg()
    {
        const QByteArray saved = qgetenv("XDG_STATE_HOME");
        qputenv("XDG_STATE_HOME", "/srv/state");
        QCOMPARE(ResumeJournal::defaultDirectory(), QStringLiteral("/srv/state/multilane"));
        const QString fallback = QDir::homePath() + QStringLiteral("/.local/state/multilane");
        qputenv("XDG_STATE_HOME", "relative/state"); // the XDG spec says to ignore it
        QCOMPARE(ResumeJournal::defaultDirectory(), fallback);
        qunsetenv("XDG_STATE_HOME");
        QCOMPARE(ResumeJournal::defaultDirectory(), fallback);
        if (!saved.isNull())
            qputenv("XDG_STATE_HOME", saved);
    }

    void keysAreStableAndDistinct()
    {
        const SourceFile a = sourceFile(QStringLiteral("a"));
        QCOMPARE(ResumeJournal::keyFor(a), ResumeJournal::keyFor(a));
        SourceFile otherDestination = a;
        otherDestination.setDestinationPath(a.destinationPath() + u'2');
        QVERIFY(ResumeJournal::keyFor(a) != ResumeJournal::keyFor(otherDestination));
        SourceFile otherSize = a;
        otherSize.size += 1;
        QCOMPARE(ResumeJournal::keyFor(otherSize), ResumeJournal::keyFor(a));
    }

    void roundTripsEveryRecordType()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString batchId, keyA, keyB;
        {
            ResumeJournal journal(dir.path());
            QCOMPARE(errorOf(journal.open()), QString());
            JournalBatch batch = sampleBatch();
            batch.createdMs = 1700000000123;
            batchId = journal.addBatch(batch);
            QVERIFY(batchId.startsWith(QStringLiteral("20231114-221320-")));
            keyA = *journal.addFile(batchId, sourceFile(QStringLiteral("a.bin"), 123456789012));
            keyB = *journal.addFile(batchId, sourceFile(QStringLiteral("b.bin")));
            const QString keyC = *journal.addFile(batchId, sourceFile(QStringLiteral("c.bin")));
            QVERIFY(!journal.addFile(QStringLiteral("no-such-batch"), sourceFile(QStringLiteral("d"))));
            journal.setUpload(keyA, QStringLiteral("up-A"), 4096);
            for (int chunk : {3, 1, 2, 1, 7})
                journal.acknowledgeChunk(keyA, chunk);
            journal.endFile(keyC);
            QCOMPARE(errorOf(journal.flush()), QString());
        }
        ResumeJournal reader(dir.path());
        const ResumeJournal::Snapshot snapshot = reader.load();
        QCOMPARE(snapshot.warnings, QStringList());
        QCOMPARE(snapshot.batches.size(), 1);
        const JournalBatch &batch = snapshot.batches.at(0);
        const JournalBatch expected = sampleBatch();
        QCOMPARE(batch.id, batchId);
        QCOMPARE(batch.createdMs, qint64(1700000000123));
        QCOMPARE(batch.endpoints.size(), 2);
        QCOMPARE(batch.endpoints.at(0).url, expected.endpoints.at(0).url);
        QCOMPARE(batch.endpoints.at(0).token, expected.endpoints.at(0).token);
        QCOMPARE(batch.endpoints.at(0).weight, 3);
        QCOMPARE(batch.endpoints.at(0).maxConnections, 4);
        QCOMPARE(batch.endpoints.at(1).url, expected.endpoints.at(1).url);
        QCOMPARE(batch.endpoints.at(1).token, QByteArray());
        QCOMPARE(batch.connections, 12);
        QCOMPARE(batch.chunkSize, qint64(8 * 1024 * 1024));
        QCOMPARE(batch.onConflict, ConflictPolicy::Overwrite);
        QCOMPARE(batch.destination, expected.destination);

        QCOMPARE(snapshot.files.size(), 2);
        const JournalFile &a = snapshot.files.at(0);
        QCOMPARE(a.batchId, batchId);
        QCOMPARE(a.key, keyA);
        QCOMPARE(a.source.localPath(), QStringLiteral("/data/a.bin"));
        QCOMPARE(a.source.destinationPath(), QStringLiteral("dest/a.bin"));
        QCOMPARE(a.source.size, qint64(123456789012));
        QCOMPARE(a.source.mtimeMs, qint64(1700000000000 + 123456789012));
        QCOMPARE(a.uploadId, QStringLiteral("up-A"));
        QCOMPARE(a.chunkSize, qint64(4096));
        QCOMPARE(a.acknowledgedChunks, QList<int>({1, 2, 3, 7}));
        const JournalFile &b = snapshot.files.at(1);
        QCOMPARE(b.key, keyB);
        QVERIFY(b.uploadId.isEmpty());
        QVERIFY(b.acknowledgedChunks.isEmpty());

        // The writer's live state and a fresh open() agree with the read-only load.
        QCOMPARE(errorOf(reader.open()), QString());
        QCOMPARE(describe(reader.state()), describe(snapshot));
        QCOMPARE(reader.file(keyA)->acknowledgedChunks, QList<int>({1, 2, 3, 7}));
    }

    void addFilesRecordsEveryFileAsAddFileDoes()
    {
        // Enough records for several writes (the records go out some 64 KiB at a time).
        QList<SourceFile> files;
        for (int i = 0; i < 1500; ++i)
            files.append(sourceFile(QStringLiteral("many/%1.bin").arg(i), 1000 + i));
        QTemporaryDir dir;
        QString batchId;
        {
            ResumeJournal journal(dir.path());
            QCOMPARE(errorOf(journal.open()), QString());
            QVERIFY(!journal.addFiles(QStringLiteral("no-such-batch"), files));
            batchId = journal.addBatch(sampleBatch());
            QVERIFY(journal.addFiles(batchId, files));
            QCOMPARE(errorOf(journal.flush()), QString());
        }
        ResumeJournal reader(dir.path());
        const ResumeJournal::Snapshot snapshot = reader.load();
        QCOMPARE(snapshot.warnings, QStringList());
        QCOMPARE(snapshot.files.size(), files.size());
        for (qsizetype i = 0; i < files.size(); ++i) {
            const JournalFile &loaded = snapshot.files.at(i);
            QCOMPARE(loaded.batchId, batchId);
            QCOMPARE(loaded.key, ResumeJournal::keyFor(files.at(i)));
            QCOMPARE(loaded.source.localPath(), files.at(i).localPath());
            QCOMPARE(loaded.source.destinationPath(), files.at(i).destinationPath());
            QCOMPARE(loaded.source.size, files.at(i).size);
            QCOMPARE(loaded.source.mtimeMs, files.at(i).mtimeMs);
        }
    }

    void endsHeldBackKeepTheirOrder()
    {
        QTemporaryDir dir;
        ResumeJournal journal(dir.path());
        QCOMPARE(errorOf(journal.open()), QString());
        const QString batch = journal.addBatch(sampleBatch());
        const QString a = *journal.addFile(batch, sourceFile(QStringLiteral("a")));
        const QString b = *journal.addFile(batch, sourceFile(QStringLiteral("b")));
        const QString c = *journal.addFile(batch, sourceFile(QStringLiteral("c")));
        ResumeJournal reader(dir.path());

        journal.endFileSoon(a);
        journal.endFileSoon(b);
        QVERIFY(!journal.file(a));               // gone from the live state at once
        QCOMPARE(reader.load().files.size(), 3); // its record not written yet
        journal.writeHeldRecords();
        QCOMPARE(reader.load().files.size(), 1);

        // A record written after a held end goes behind it: c, ended and sent again, stays.
        journal.endFileSoon(c);
        QCOMPARE(*journal.addFile(batch, sourceFile(QStringLiteral("c"))), c);
        journal.setUpload(c, QStringLiteral("up-c"), 100);
        const ResumeJournal::Snapshot snapshot = reader.load();
        QCOMPARE(snapshot.files.size(), 1);
        QCOMPARE(snapshot.files.at(0).key, c);
        QCOMPARE(snapshot.files.at(0).uploadId, QStringLiteral("up-c"));

        // flush() writes what is held.
        journal.endFileSoon(c);
        QCOMPARE(errorOf(journal.flush()), QString());
        QCOMPARE(reader.load().files.size(), 0);
    }

    void newerFileRecordReplacesOlder()
    {
        QTemporaryDir dir;
        ResumeJournal journal(dir.path());
        QCOMPARE(errorOf(journal.open()), QString());
        const QString first = journal.addBatch(sampleBatch());
        const QString key = *journal.addFile(first, sourceFile(QStringLiteral("x"), 100));
        journal.setUpload(key, QStringLiteral("old-upload"), 10);
        journal.acknowledgeChunk(key, 0);
        const QString second = journal.addBatch(sampleBatch());
        QCOMPARE(*journal.addFile(second, sourceFile(QStringLiteral("x"), 200)), key);

        for (const ResumeJournal::Snapshot &snapshot : {journal.state(), journal.load()}) {
            QCOMPARE(snapshot.files.size(), 1);
            QCOMPARE(snapshot.files.at(0).batchId, second);
            QCOMPARE(snapshot.files.at(0).source.size, qint64(200));
            QVERIFY(snapshot.files.at(0).uploadId.isEmpty());
            QVERIFY(snapshot.files.at(0).acknowledgedChunks.isEmpty());
            // The first batch has no live file left, so it is not listed.
            QCOMPARE(snapshot.batches.size(), 1);
            QCOMPARE(snapshot.batches.at(0).id, second);
        }
    }

    void newUploadIdForgetsAcks()
    {
        QTemporaryDir dir;
        ResumeJournal journal(dir.path());
        QCOMPARE(errorOf(journal.open()), QString());
        const QString key =
            *journal.addFile(journal.addBatch(sampleBatch()), sourceFile(QStringLiteral("x")));
        journal.setUpload(key, QStringLiteral("one"), 10);
        journal.acknowledgeChunk(key, 0);
        journal.acknowledgeChunk(key, 1);
        journal.setUpload(key, QStringLiteral("one"), 10); // same upload again: keeps acks
        QCOMPARE(journal.load().files.at(0).acknowledgedChunks, QList<int>({0, 1}));
        journal.setUpload(key, QStringLiteral("two"), 10);
        journal.acknowledgeChunk(key, 5);
        QCOMPARE(journal.load().files.at(0).acknowledgedChunks, QList<int>({5}));
        QCOMPARE(journal.state().files.at(0).acknowledgedChunks, QList<int>({5}));
    }

    void receiptsSurviveReloadAndCompaction()
    {
        QTemporaryDir dir;
        QString key;
        {
            ResumeJournal journal(dir.path());
            QCOMPARE(errorOf(journal.open()), QString());
            key = *journal.addFile(journal.addBatch(sampleBatch()), sourceFile(QStringLiteral("r")));
            journal.setUpload(key, QStringLiteral("up"), 10);
            journal.acknowledgeChunk(key, 0, "9a0c1d2e3f405162");
            journal.acknowledgeChunk(key, 1, "0123456789abcdef0123456789abcdef"); // an S3 part's MD5
            journal.acknowledgeChunk(key, 2);                                     // none (older receiver)
            journal.acknowledgeChunk(key, 3, "needs \"escaping\"");               // not kept, still acked
            const JournalFile &file = journal.state().files.at(0);
            QCOMPARE(file.receipts.value(0), QByteArray("9a0c1d2e3f405162"));
            QCOMPARE(file.acknowledgedChunks, QList<int>({0, 1, 2, 3}));
            QVERIFY(!file.receipts.contains(3));
        }
        const auto check = [&key](const ResumeJournal::Snapshot &snapshot) {
            QCOMPARE(snapshot.files.size(), qsizetype(1));
            const JournalFile &file = snapshot.files.at(0);
            QCOMPARE(file.key, key);
            QCOMPARE(file.acknowledgedChunks, QList<int>({0, 1, 2, 3}));
            QCOMPARE(file.receipts.size(), qsizetype(2));
            QCOMPARE(file.receipts.value(0), QByteArray("9a0c1d2e3f405162"));
            QCOMPARE(file.receipts.value(1), QByteArray("0123456789abcdef0123456789abcdef"));
            QCOMPARE(snapshot.warnings, QStringList());
        };
        ResumeJournal journal(dir.path());
        check(journal.load()); // from the appended records
        QCOMPARE(errorOf(journal.open()), QString());
        check(journal.state());
        check(journal.load()); // from the compacted upload record
        // A new upload id forgets the receipts with the acknowledgements.
        journal.setUpload(key, QStringLiteral("other"), 10);
        QVERIFY(journal.state().files.at(0).receipts.isEmpty());
    }

    // An S3 batch comes back with its target (a profile name, never keys), and an upload id as Ceph and
    // the S3 adapter make them ("2~…", "UPLOADID|KEY" for a renamed object) intact.
    void s3BatchSurvivesReloadAndCompaction()
    {
        QTemporaryDir dir;
        JournalBatch batch;
        Endpoint gateway;
        gateway.url = QUrl(QStringLiteral("https://gw1:7480"));
        batch.endpoints = {gateway};
        batch.s3 = {QStringLiteral("s3://my-bucket/backups/"), QStringLiteral("eu-west-1"),
                    S3Addressing::Path, QStringLiteral("backup")};
        const QString uploadId = QStringLiteral("2~c-ZNd_ex7ch1A|backups/name (1).ext \"q\" é");
        QString key;
        {
            ResumeJournal journal(dir.path());
            QCOMPARE(errorOf(journal.open()), QString());
            key = *journal.addFile(journal.addBatch(batch), sourceFile(QStringLiteral("s")));
            journal.setUpload(key, uploadId, 5 * 1024 * 1024);
            journal.acknowledgeChunk(key, 1, "0123456789abcdef0123456789abcdef");
        }
        const auto check = [&](const ResumeJournal::Snapshot &snapshot) {
            QCOMPARE(snapshot.batches.size(), qsizetype(1));
            QVERIFY(snapshot.batches.at(0).s3 == batch.s3);
            QCOMPARE(snapshot.batches.at(0).endpoints.at(0).url, gateway.url);
            QCOMPARE(snapshot.files.at(0).uploadId, uploadId);
            QCOMPARE(snapshot.files.at(0).receipts.value(1), QByteArray("0123456789abcdef0123456789abcdef"));
            QCOMPARE(snapshot.warnings, QStringList());
        };
        ResumeJournal journal(dir.path());
        check(journal.load());
        QCOMPARE(errorOf(journal.open()), QString());
        check(journal.load()); // compacted
        QFile log(journal.logPath());
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QByteArray text = log.readAll();
        QVERIFY(text.contains("\"s3\":{"));
    }

    void endRemovesFile()
    {
        QTemporaryDir dir;
        ResumeJournal journal(dir.path());
        QCOMPARE(errorOf(journal.open()), QString());
        const QString batch = journal.addBatch(sampleBatch());
        const QString keep = *journal.addFile(batch, sourceFile(QStringLiteral("keep")));
        const QString done = *journal.addFile(batch, sourceFile(QStringLiteral("done")));
        journal.endFile(done);
        QVERIFY(!journal.file(done));
        // Late calls for an ended file write nothing.
        const qint64 size = fileSize(journal.logPath());
        journal.acknowledgeChunk(done, 1);
        journal.setUpload(done, QStringLiteral("late"), 1);
        journal.endFile(done);
        QCOMPARE(fileSize(journal.logPath()), size);

        ResumeJournal::Snapshot snapshot = journal.load();
        QCOMPARE(snapshot.files.size(), 1);
        QCOMPARE(snapshot.files.at(0).key, keep);
        journal.endFile(keep);
        snapshot = journal.load();
        QVERIFY(snapshot.files.isEmpty());
        QVERIFY(snapshot.batches.isEmpty());
        QVERIFY(journal.state().batches.isEmpty());
    }

    void compactionShrinksAndKeepsState()
    {
        QTemporaryDir dir;
        QString key;
        QString before;
        qint64 sizeBefore = 0;
        {
            ResumeJournal journal(dir.path());
            QCOMPARE(errorOf(journal.open()), QString());
            const QString batch = journal.addBatch(sampleBatch());
            for (int i = 0; i < 50; ++i)
                journal.endFile(*journal.addFile(batch, sourceFile(QStringLiteral("gone%1").arg(i))));
            key = *journal.addFile(batch, sourceFile(QStringLiteral("live")));
            journal.setUpload(key, QStringLiteral("up"), 64);
            for (int chunk = 0; chunk < 500; ++chunk) {
                if (chunk != 250)
                    journal.acknowledgeChunk(key, chunk);
            }
            before = describe(journal.state());
            sizeBefore = fileSize(journal.logPath());
        }
        auto journal = std::make_unique<ResumeJournal>(dir.path());
        QCOMPARE(describe(journal->load()), before); // load() alone does not compact
        QCOMPARE(fileSize(journal->logPath()), sizeBefore);
        QCOMPARE(errorOf(journal->open()), QString());
        const qint64 sizeAfter = fileSize(journal->logPath());
        QVERIFY2(sizeAfter < sizeBefore / 10,
                 qPrintable(QStringLiteral("%1 -> %2").arg(sizeBefore).arg(sizeAfter)));
        QVERIFY(!QFileInfo::exists(journal->logPath() + QStringLiteral(".new")));
        QCOMPARE(describe(journal->state()), before);
        QCOMPARE(describe(journal->load()), before);
        // Appends continue after the compacted records.
        journal->acknowledgeChunk(key, 250);
        QCOMPARE(journal->load().files.at(0).acknowledgedChunks.size(), qsizetype(500));
        // Compacting a compacted log changes nothing.
        const QString after = describe(journal->load());
        journal.reset();
        ResumeJournal again(dir.path());
        QCOMPARE(errorOf(again.open()), QString());
        QCOMPARE(describe(again.state()), after);
        QCOMPARE(again.state().warnings, QStringList());
    }

    // What the tuner settled at, per network: the newer estimate of a network replaces the older,
    // it survives a reload and compaction (which keeps the most recent few), and a file's end
    // does not take it along.
    void linkEstimatesAreKeptPerNetwork()
    {
        QTemporaryDir dir;
        const auto memory = [](const QString &network, qint64 takenMs, int connections) {
            return LinkMemory{network, takenMs, connections, 1e6 * connections, 12.5, 4 << 20};
        };
        {
            ResumeJournal journal(dir.path());
            QCOMPARE(errorOf(journal.open()), QString());
            const QString batch = journal.addBatch(sampleBatch());
            journal.endFile(*journal.addFile(batch, sourceFile(QStringLiteral("done"))));
            journal.rememberLink(memory(QStringLiteral("home"), 1000, 6));
            journal.rememberLink(memory(QStringLiteral("office"), 2000, 40));
            journal.rememberLink(memory(QStringLiteral("home"), 3000, 9));
            QCOMPARE(journal.rememberedLink(QStringLiteral("home"))->connections, 9);
            QVERIFY(!journal.rememberedLink(QStringLiteral("cafe")));
        }
        auto reloaded = std::make_unique<ResumeJournal>(dir.path());
        QCOMPARE(errorOf(reloaded->open()), QString());
        QCOMPARE(reloaded->state().warnings, QStringList());
        const std::optional<LinkMemory> home = reloaded->rememberedLink(QStringLiteral("home"));
        QVERIFY(home.has_value());
        QCOMPARE(home->takenMs, 3000);
        QCOMPARE(home->connections, 9);
        QCOMPARE(home->bytesPerSecond, 9e6);
        QCOMPARE(home->rttMs, 12.5);
        QCOMPARE(home->chunkSize, qint64(4 << 20));
        QCOMPARE(home->perConnection(), 1e6);
        QCOMPARE(reloaded->rememberedLink(QStringLiteral("office"))->connections, 40);
        for (int i = 0; i < JournalModel::MaxLinks; ++i)
            reloaded->rememberLink(memory(QStringLiteral("net%1").arg(i), 10000 + i, 1));
        reloaded.reset(); // releases the lock for the next open(), which compacts
        ResumeJournal compacted(dir.path());
        QCOMPARE(errorOf(compacted.open()), QString());
        QVERIFY(compacted.rememberedLink(QStringLiteral("net0")));
        QVERIFY(!compacted.rememberedLink(QStringLiteral("home"))); // the oldest went
    }

    void secondWriterIsRefused()
    {
        QTemporaryDir dir;
        auto first = std::make_unique<ResumeJournal>(dir.path());
        QCOMPARE(errorOf(first->open()), QString());
        ResumeJournal second(dir.path());
        const auto error = second.open();
        QVERIFY(error.has_value());
        QVERIFY2(error->contains(QDir(dir.path()).absolutePath()), qPrintable(*error));
        QVERIFY(!second.isOpen());
        first.reset();
        QCOMPARE(errorOf(second.open()), QString());
    }

    void truncatedAtEveryOffset()
    {
        QTemporaryDir dir;
        const RecordedLog log = recordRealisticLog(dir.filePath(QStringLiteral("source")));
        QVERIFY(log.boundaries.size() > 20);
        QCOMPARE(log.boundaries.constLast(), qint64(log.bytes.size()));
        QCOMPARE(log.boundaries.constFirst(), qint64(0));
        const QString target = dir.filePath(QStringLiteral("cut"));
        QVERIFY(QDir().mkpath(target));
        const ResumeJournal reader(target);
        qsizetype records = 0; // complete records in the prefix
        for (qsizetype length = 0; length <= log.bytes.size(); ++length) {
            while (records + 1 < log.boundaries.size() && log.boundaries.at(records + 1) <= length)
                ++records;
            writeFile(reader.logPath(), log.bytes.left(length));
            const ResumeJournal::Snapshot snapshot = reader.load();
            const QString where = QStringLiteral("cut at %1 of %2").arg(length).arg(log.bytes.size());
            QVERIFY2(describe(snapshot) == log.states.at(records), qPrintable(where));
            const bool midRecord = log.boundaries.at(records) != length;
            QVERIFY2(snapshot.warnings.size() == (midRecord ? 1 : 0), qPrintable(where));
            if (midRecord) {
                const QString expected = QStringLiteral("at byte %1;").arg(log.boundaries.at(records));
                QVERIFY2(snapshot.warnings.at(0).contains(expected),
                         qPrintable(where + snapshot.warnings.at(0)));
            }
        }
        QCOMPARE(describe(reader.load()), log.states.constLast());
        QVERIFY(!log.states.constLast().isEmpty());
    }

    void flippedByteIsDetected_data()
    {
        QTest::addColumn<int>("where"); // 0: a digit in the JSON, so it stays valid JSON; 1: the CRC
        QTest::newRow("json still parses") << 0;
        QTest::newRow("crc digit") << 1;
    }
    void flippedByteIsDetected()
    {
        QFETCH(int, where);
        QTemporaryDir dir;
        const RecordedLog log = recordRealisticLog(dir.filePath(QStringLiteral("source")));
        // Pick an ack record near the middle.
        qsizetype middle = log.boundaries.size() / 2;
        while (!log.bytes.mid(log.boundaries.at(middle), 64).contains("\"ack\""))
            ++middle;
        const qsizetype start = log.boundaries.at(middle);
        const qsizetype end = log.boundaries.at(middle + 1);
        QByteArray damaged = log.bytes;
        qsizetype at = where == 0 ? damaged.indexOf("\"chunk\":", start) + 8 : start + 3;
        QVERIFY(at > start && at < end);
        damaged[at] = damaged.at(at) == '9' ? '8' : char(damaged.at(at) + 1);
        if (where == 1 && damaged.at(at) == 'g')
            damaged[at] = '0';

        const QString target = dir.filePath(QStringLiteral("damaged"));
        QVERIFY(QDir().mkpath(target));
        const ResumeJournal reader(target);
        writeFile(reader.logPath(), damaged);
        const ResumeJournal::Snapshot snapshot = reader.load();
        QCOMPARE(describe(snapshot), log.states.at(middle));
        QCOMPARE(snapshot.warnings.size(), 1);
        QVERIFY2(
            snapshot.warnings.at(0).contains(
                QStringLiteral("at byte %1 (and %2 bytes after it)").arg(start).arg(log.bytes.size() - end)),
            qPrintable(snapshot.warnings.at(0)));

        // open() keeps what was before the damage and drops the rest for good.
        ResumeJournal writer(target);
        QCOMPARE(errorOf(writer.open()), QString());
        QCOMPARE(describe(writer.state()), log.states.at(middle));
        QCOMPARE(writer.state().warnings.size(), 1);
        QCOMPARE(reader.load().warnings, QStringList());
    }

    void permissions()
    {
        QTemporaryDir dir;
        const QString nested = dir.filePath(QStringLiteral("state/multilane"));
        {
            ResumeJournal journal(nested);
            QCOMPARE(errorOf(journal.open()), QString());
            QCOMPARE(modeOf(nested), 0700);
            QCOMPARE(modeOf(dir.filePath(QStringLiteral("state"))), 0700);
            QCOMPARE(modeOf(journal.logPath()), 0600);
        }
        // A wider file left by someone else is tightened at compaction.
        ResumeJournal journal(nested);
        QVERIFY(QFile::setPermissions(journal.logPath(), QFile::ReadOwner | QFile::WriteOwner |
                                                             QFile::ReadUser | QFile::WriteUser |
                                                             QFile::ReadGroup | QFile::ReadOther));
        QCOMPARE(modeOf(journal.logPath()), 0644);
        // So is a journal.log.new that a kill during compaction left behind with wider permissions.
        const QString leftover = journal.logPath() + QStringLiteral(".new");
        writeFile(leftover, "half a compaction");
        QVERIFY(QFile::setPermissions(leftover, QFile::permissions(journal.logPath())));
        QCOMPARE(modeOf(leftover), 0644);
        QCOMPARE(errorOf(journal.open()), QString());
        QCOMPARE(modeOf(journal.logPath()), 0600);
        QVERIFY(!QFileInfo::exists(leftover));
    }

    void openReportsUnusableDirectory()
    {
        // A path below a regular file fails even for root, unlike a chmod-ed folder.
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("plain")), "x");
        const QString path = dir.filePath(QStringLiteral("plain/state"));
        ResumeJournal journal(path);
        const auto error = journal.open();
        QVERIFY(error.has_value());
        QVERIFY2(error->contains(path), qPrintable(*error));
        QVERIFY(!journal.isOpen());
        // Still usable in memory, so an upload can go on without resume.
        const QString key =
            *journal.addFile(journal.addBatch(sampleBatch()), sourceFile(QStringLiteral("m")));
        journal.acknowledgeChunk(key, 0);
        QCOMPARE(journal.state().files.at(0).acknowledgedChunks, QList<int>({0}));
    }

    void loadOfMissingDirectoryIsEmpty()
    {
        QTemporaryDir dir;
        const QString missing = dir.filePath(QStringLiteral("never/created"));
        const ResumeJournal::Snapshot snapshot = ResumeJournal(missing).load();
        QVERIFY(snapshot.batches.isEmpty());
        QVERIFY(snapshot.files.isEmpty());
        QVERIFY(snapshot.warnings.isEmpty());
        QVERIFY(!QFileInfo::exists(missing)); // load() is read-only
    }

    void killedWhileAppending()
    {
        QTemporaryDir dir;
        QProcess writer;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QString::fromLatin1(WriterEnv), dir.path());
        writer.setProcessEnvironment(environment);
        writer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        writer.start(QCoreApplication::applicationFilePath(), {});
        QVERIFY(writer.waitForStarted());
        QByteArray output;
        while (!output.contains("wrote")) {
            QVERIFY2(writer.waitForReadyRead(60000), "the writer did not report 1000 records");
            output += writer.readAllStandardOutput();
        }
        writer.kill(); // SIGKILL while it is still appending
        QVERIFY(writer.waitForFinished());
        QCOMPARE(writer.exitStatus(), QProcess::CrashExit);

        const ResumeJournal::Snapshot snapshot = ResumeJournal(dir.path()).load();
        QCOMPARE(snapshot.files.size(), 1);
        const QList<int> &chunks = snapshot.files.at(0).acknowledgedChunks;
        QVERIFY2(chunks.size() >= WriterReadyAt, qPrintable(QString::number(chunks.size())));
        QVERIFY2(chunks.size() < 1000000, "the writer finished before it was killed");
        // Acks were written in order, so what survived is exactly a prefix of them.
        QCOMPARE(chunks.constFirst(), 0);
        QCOMPARE(qsizetype(chunks.constLast()), chunks.size() - 1);
        QCOMPARE(snapshot.files.at(0).uploadId, QStringLiteral("upload-1"));

        ResumeJournal reopened(dir.path());
        QCOMPARE(errorOf(reopened.open()), QString());
        QCOMPARE(reopened.state().files.at(0).acknowledgedChunks.size(), chunks.size());
    }
};

// Like QTEST_GUILESS_MAIN, but the same binary doubles as the writer that killedWhileAppending kills.
int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsSet(WriterEnv))
        return runWriter(qEnvironmentVariable(WriterEnv));
    QCoreApplication app(argc, argv);
    TestResumeJournal test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_resumejournal.moc"
