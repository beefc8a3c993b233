#include "StoreContract.h"

#include "ServiceHarness.h"

#include "ChunkHash.h"

#include <QTest>
#include <thread>

using namespace multilane;

namespace {

quint64 xxh3(const QByteArray &data)
{
    return ChunkHash::of(data.constData(), std::size_t(data.size()));
}

QByteArray sha256(const QByteArray &data)
{
    return ServiceHarness::sha256(data);
}

BodyReader bodyOf(const QByteArray &data)
{
    return ServiceHarness::bodyOf(data);
}

QByteArray testData(qint64 size, int seed = 1)
{
    return ServiceHarness::testData(size, seed);
}

UploadSpec spec(const QString &path, qint64 size, qint64 chunkSize,
                ConflictPolicy onConflict = ConflictPolicy::Rename, qint64 mtime = 1)
{
    UploadSpec upload;
    upload.path = path;
    upload.size = size;
    upload.mtime = mtime;
    upload.chunkSize = chunkSize;
    upload.onConflict = onConflict;
    return upload;
}

// Writes chunk `index` of `data` (cut in chunks of `chunkSize`) to upload `id`.
Result<ChunkOutcome> writeChunk(UploadStore &store, const QByteArray &id, const QByteArray &data,
                                qint64 chunkSize, qint64 index)
{
    const QByteArray chunk = data.mid(index * chunkSize, chunkSize);
    return store.writeChunk(id, index, chunk.size(), xxh3(chunk), bodyOf(chunk));
}

} // namespace

// Why a Result holds no value, for a failed check's message.
template<typename T> QByteArray problemOf(const Result<T> &result)
{
    if (result.ok())
        return {};
    return QByteArray(protocolErrorCodeName(result.error().code)) + ' ' + result.error().message.toUtf8();
}

// QVERIFY for a Result, which names the error when there is one; evaluates `expression` once.
#define VERIFY_OK(expression)                                                                                \
    do {                                                                                                     \
        const auto &verified = (expression);                                                                 \
        QVERIFY2(verified.ok(), problemOf(verified).constData());                                            \
    } while (false)

StoreContract::StoreContract(StoreBackend backend)
    : m_backend(std::move(backend))
{}

void StoreContract::init()
{
    m_scratch = std::make_unique<QTemporaryDir>();
    QVERIFY(m_scratch->isValid());
    m_store = m_backend.make(m_scratch->path());
    QVERIFY(m_store);
    const auto problem = m_store->prepare();
    QVERIFY2(!problem, problem ? qPrintable(problem->message) : "");
}

void StoreContract::cleanup()
{
    m_store.reset();
    m_scratch.reset();
}

std::optional<QByteArray> StoreContract::stored(const QString &path) const
{
    return m_backend.readFinished(m_scratch->path(), path);
}

Result<FinishedFile> StoreContract::upload(const QString &path, const QByteArray &data, qint64 chunkSize,
                                           ConflictPolicy onConflict, qint64 mtime)
{
    const auto created = m_store->createUpload(spec(path, data.size(), chunkSize, onConflict, mtime));
    if (!created)
        return created.error();
    if (created.value().kind != CreateOutcome::Kind::Created &&
        created.value().kind != CreateOutcome::Kind::Found)
        return created.value().finished;
    const QByteArray id = created.value().upload.id;
    for (qint64 index = 0; index < created.value().upload.chunkCount; ++index) {
        const auto written = writeChunk(*m_store, id, data, chunkSize, index);
        if (!written)
            return written.error();
    }
    return m_store->completeUpload(id, sha256(data));
}

void StoreContract::describesItself()
{
    qInfo("store: %s at %s", qPrintable(m_backend.name), qPrintable(m_store->location()));
    QVERIFY(!m_store->location().isEmpty());
    const StoreLimits limits = m_store->limits();
    QVERIFY(limits.minChunkSize >= 1);
    QVERIFY(limits.maxChunkSize >= limits.minChunkSize);
    QVERIFY(limits.maxChunkSize <= ChunkLayout::MaxChunkSize);
    QVERIFY(limits.maxChunkCount >= 1 && limits.maxChunkCount <= ChunkLayout::MaxChunkCount);
    QVERIFY(limits.maxFileSize >= 1);
    const StorageSpace space = m_store->space();
    QVERIFY(!space.freeBytes || *space.freeBytes >= 0);
    QVERIFY(!space.freeBytes || !space.totalBytes || *space.freeBytes <= *space.totalBytes);
}

void StoreContract::createAndFindByKey()
{
    const auto created = m_store->createUpload(spec(QStringLiteral("photos/a.jpg"), 10000, 4096));
    VERIFY_OK(created);
    QCOMPARE(created.value().kind, CreateOutcome::Kind::Created);
    const UploadState &state = created.value().upload;
    QVERIFY(!state.id.isEmpty());
    QCOMPARE(state.path, QStringLiteral("photos/a.jpg"));
    QCOMPARE(state.size, 10000);
    QCOMPARE(state.chunkSize, 4096);
    QCOMPARE(state.chunkCount, 3);
    QVERIFY(state.received.isEmpty());
    QVERIFY(!created.value().existing);

    const auto again = m_store->createUpload(spec(QStringLiteral("photos/a.jpg"), 10000, 4096));
    VERIFY_OK(again);
    QCOMPARE(again.value().kind, CreateOutcome::Kind::Found);
    QCOMPARE(again.value().upload.id, state.id);
    const auto byKey = m_store->findUploadByKey({QStringLiteral("photos/a.jpg"), 10000, 1});
    VERIFY_OK(byKey);
    QCOMPARE(byKey.value().id, state.id);
    const auto byId = m_store->findUpload(state.id);
    VERIFY_OK(byId);
    QCOMPARE(byId.value().chunkCount, 3);
    QCOMPARE(m_store->uploadPath(state.id), std::optional<QString>(QStringLiteral("photos/a.jpg")));

    // Another mtime or size is another upload; unknown keys and ids are no_such_upload.
    const auto other = m_store->createUpload(spec(QStringLiteral("photos/a.jpg"), 10000, 4096, {}, 2));
    VERIFY_OK(other);
    QVERIFY(other.value().upload.id != state.id);
    QCOMPARE(m_store->findUploadByKey({QStringLiteral("photos/a.jpg"), 9999, 1}).error().code,
             ProtocolErrorCode::NoSuchUpload);
    QCOMPARE(m_store->findUpload("0123456789abcdef0123456789abcdef").error().code,
             ProtocolErrorCode::NoSuchUpload);
    QCOMPARE(m_store->findUpload("../../etc/passwd").error().code, ProtocolErrorCode::NoSuchUpload);
    QCOMPARE(m_store->uploadPath("0123456789abcdef0123456789abcdef"), std::nullopt);
}

void StoreContract::firstChunkSizeStays()
{
    const auto first = m_store->createUpload(spec(QStringLiteral("c.bin"), 10000, 4096));
    VERIFY_OK(first);
    const auto second = m_store->createUpload(spec(QStringLiteral("c.bin"), 10000, 8192));
    VERIFY_OK(second);
    QCOMPARE(second.value().upload.id, first.value().upload.id);
    QCOMPARE(second.value().upload.chunkSize, 4096);
    QCOMPARE(second.value().upload.chunkCount, 3);
}

void StoreContract::chunkWriteAndDuplicate()
{
    const QByteArray data = testData(10000);
    const auto created = m_store->createUpload(spec(QStringLiteral("d.bin"), data.size(), 4096));
    VERIFY_OK(created);
    const QByteArray id = created.value().upload.id;
    auto written = writeChunk(*m_store, id, data, 4096, 2);
    VERIFY_OK(written);
    QCOMPARE(written.value().index, 2);
    QVERIFY(!written.value().duplicate);
    written = writeChunk(*m_store, id, data, 4096, 2);
    VERIFY_OK(written);
    QVERIFY(written.value().duplicate);

    const auto state = m_store->findUpload(id);
    VERIFY_OK(state);
    QCOMPARE(state.value().received, QList<qint64>{2});
    QCOMPARE(state.value().receivedHashes, QList<quint64>{xxh3(data.mid(8192))});
    // A create that finds the upload reports what it holds.
    const auto found = m_store->createUpload(spec(QStringLiteral("d.bin"), data.size(), 4096));
    QCOMPARE(found.value().upload.received, QList<qint64>{2});
}

void StoreContract::wrongHashIsRefused()
{
    const QByteArray data = testData(4096);
    const QByteArray id =
        m_store->createUpload(spec(QStringLiteral("h.bin"), data.size(), 4096)).value().upload.id;
    QByteArray damaged = data;
    damaged[100] = char(damaged[100] ^ 1);
    const auto refused = m_store->writeChunk(id, 0, damaged.size(), xxh3(data), bodyOf(damaged));
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, ProtocolErrorCode::ChecksumMismatch);
    QVERIFY(m_store->findUpload(id).value().received.isEmpty());
    VERIFY_OK(writeChunk(*m_store, id, data, 4096, 0)); // the right bytes still go in afterwards
}

void StoreContract::wrongLengthOrIndexIsRefused()
{
    const QByteArray data = testData(10000);
    const QByteArray id =
        m_store->createUpload(spec(QStringLiteral("l.bin"), data.size(), 4096)).value().upload.id;
    const QByteArray longer = data.left(4097);
    QCOMPARE(m_store->writeChunk(id, 0, longer.size(), xxh3(longer), bodyOf(longer)).error().code,
             ProtocolErrorCode::TooLarge);
    const QByteArray shorter = data.left(4095);
    QCOMPARE(m_store->writeChunk(id, 0, shorter.size(), xxh3(shorter), bodyOf(shorter)).error().code,
             ProtocolErrorCode::LengthMismatch);
    // A body that ends before its declared length.
    const QByteArray chunk = data.left(4096);
    QCOMPARE(m_store->writeChunk(id, 0, chunk.size(), xxh3(chunk), bodyOf(chunk.left(1000))).error().code,
             ProtocolErrorCode::LengthMismatch);
    QCOMPARE(m_store->writeChunk(id, 3, 1, 0, bodyOf("x")).error().code, ProtocolErrorCode::BadRequest);
    QCOMPARE(m_store->writeChunk(id, -1, 1, 0, bodyOf("x")).error().code, ProtocolErrorCode::BadRequest);
    QVERIFY(m_store->findUpload(id).value().received.isEmpty());
    QCOMPARE(m_store->writeChunk("0123456789abcdef0123456789abcdef", 0, 1, 0, bodyOf("x")).error().code,
             ProtocolErrorCode::NoSuchUpload);
}

void StoreContract::completeWithTheRightSha256()
{
    const QByteArray data = testData(10000, 2);
    const auto finished = upload(QStringLiteral("docs/c.bin"), data, 3000);
    VERIFY_OK(finished);
    QCOMPARE(finished.value().status, FinishedFile::Status::Stored);
    QCOMPARE(finished.value().path, QStringLiteral("docs/c.bin"));
    QCOMPARE(finished.value().sha256, sha256(data));
    QCOMPARE(stored(QStringLiteral("docs/c.bin")), std::optional(data));
}

void StoreContract::completeWithAWrongSha256ResetsEveryChunk()
{
    const QByteArray data = testData(9000, 3);
    const QByteArray id =
        m_store->createUpload(spec(QStringLiteral("s.bin"), data.size(), 3000)).value().upload.id;
    for (qint64 index = 0; index < 3; ++index)
        VERIFY_OK(writeChunk(*m_store, id, data, 3000, index));
    const auto refused = m_store->completeUpload(id, QByteArray(64, '0'));
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, ProtocolErrorCode::ChecksumMismatch);
    QVERIFY(m_store->findUpload(id).value().received.isEmpty());
    QCOMPARE(stored(QStringLiteral("s.bin")), std::nullopt);
    // Sent again, the upload completes.
    for (qint64 index = 0; index < 3; ++index)
        VERIFY_OK(writeChunk(*m_store, id, data, 3000, index));
    VERIFY_OK(m_store->completeUpload(id, sha256(data)));
    QCOMPARE(stored(QStringLiteral("s.bin")), std::optional(data));
}

void StoreContract::completeBeforeEveryChunkNamesTheMissing()
{
    const QByteArray data = testData(5000);
    const QByteArray id =
        m_store->createUpload(spec(QStringLiteral("i.bin"), data.size(), 1000)).value().upload.id;
    VERIFY_OK(writeChunk(*m_store, id, data, 1000, 1));
    VERIFY_OK(writeChunk(*m_store, id, data, 1000, 3));
    const auto refused = m_store->completeUpload(id, sha256(data));
    QCOMPARE(refused.error().code, ProtocolErrorCode::Incomplete);
    QCOMPARE(refused.error().missing, (QList<qint64>{0, 2, 4}));
}

void StoreContract::completeIfWholeWaitsForEveryChunkWritten()
{
    const QByteArray data = testData(3000, 5);
    const QByteArray id =
        m_store->createUpload(spec(QStringLiteral("whole.bin"), data.size(), 1000)).value().upload.id;
    VERIFY_OK(writeChunk(*m_store, id, data, 1000, 0));
    VERIFY_OK(writeChunk(*m_store, id, data, 1000, 2));
    QVERIFY(!m_store->completeIfWhole(id, sha256(data)));
    // While the last chunk's body is still coming in, the upload is not whole yet.
    const QByteArray last = data.mid(1000, 1000);
    std::optional<std::optional<Result<FinishedFile>>> duringTheWrite;
    const BodyReader body = [&](const BodySink &sink) {
        if (!sink(last.constData(), 500))
            return false;
        duringTheWrite = m_store->completeIfWhole(id, sha256(data));
        return sink(last.constData() + 500, 500);
    };
    VERIFY_OK(m_store->writeChunk(id, 1, last.size(), xxh3(last), body));
    QVERIFY(duringTheWrite.has_value());
    QVERIFY(!duringTheWrite->has_value());
    QCOMPARE(stored(QStringLiteral("whole.bin")), std::nullopt);
    const auto finished = m_store->completeIfWhole(id, sha256(data));
    QVERIFY(finished.has_value());
    VERIFY_OK(*finished);
    QCOMPARE(stored(QStringLiteral("whole.bin")), std::optional(data));
    // Done: nothing left to complete; an explicit complete still answers the same.
    QVERIFY(!m_store->completeIfWhole(id, sha256(data)));
    QCOMPARE(m_store->completeUpload(id, sha256(data)).value().path, finished->value().path);
}

void StoreContract::completeAgainAndCreateAfterDone()
{
    // For a client that crashed before it read the answer: the same answer again.
    const QByteArray data = testData(7000, 4);
    const QByteArray id =
        m_store->createUpload(spec(QStringLiteral("twice.bin"), data.size(), 4096)).value().upload.id;
    for (qint64 index = 0; index < 2; ++index)
        VERIFY_OK(writeChunk(*m_store, id, data, 4096, index));
    const auto first = m_store->completeUpload(id, sha256(data));
    VERIFY_OK(first);
    const auto again = m_store->completeUpload(id, sha256(data));
    VERIFY_OK(again);
    QCOMPARE(again.value().path, first.value().path);
    QCOMPARE(again.value().sha256, first.value().sha256);
    // A late chunk of the finished upload is harmless.
    const auto late = writeChunk(*m_store, id, data, 4096, 0);
    VERIFY_OK(late);
    QVERIFY(late.value().duplicate);
    QCOMPARE(stored(QStringLiteral("twice.bin")), std::optional(data));

    const auto created = m_store->createUpload(spec(QStringLiteral("twice.bin"), data.size(), 4096));
    VERIFY_OK(created);
    QCOMPARE(created.value().kind, CreateOutcome::Kind::AlreadyDone);
    QCOMPARE(created.value().finished.path, QStringLiteral("twice.bin"));
    QCOMPARE(created.value().finished.sha256, sha256(data));
    QCOMPARE(m_store->uploadPath(id), std::optional<QString>(QStringLiteral("twice.bin")));
    // Nothing is left unfinished under the key.
    QCOMPARE(m_store->findUploadByKey({QStringLiteral("twice.bin"), data.size(), 1}).error().code,
             ProtocolErrorCode::NoSuchUpload);
}

void StoreContract::abort()
{
    const QByteArray data = testData(5000);
    const QByteArray id =
        m_store->createUpload(spec(QStringLiteral("gone.bin"), data.size(), 1000)).value().upload.id;
    VERIFY_OK(writeChunk(*m_store, id, data, 1000, 0));
    VERIFY_OK(m_store->abortUpload(id));
    QCOMPARE(m_store->findUpload(id).error().code, ProtocolErrorCode::NoSuchUpload);
    QCOMPARE(m_store->abortUpload(id).error().code, ProtocolErrorCode::NoSuchUpload);
    QCOMPARE(m_store->usage({}, false).unfinishedUploads, 0);
    QCOMPARE(stored(QStringLiteral("gone.bin")), std::nullopt);
    // The same key starts afresh.
    const auto again = m_store->createUpload(spec(QStringLiteral("gone.bin"), data.size(), 1000));
    QCOMPARE(again.value().kind, CreateOutcome::Kind::Created);
    QVERIFY(again.value().upload.received.isEmpty());
}

void StoreContract::putWholeFile()
{
    const QByteArray data = testData(3 << 20, 5); // over one write buffer
    const auto put = m_store->putFile(QStringLiteral("inbox/whole.bin"), data.size(), ConflictPolicy::Rename,
                                      sha256(data), bodyOf(data));
    VERIFY_OK(put);
    QCOMPARE(put.value().status, FinishedFile::Status::Stored);
    QCOMPARE(put.value().sha256, sha256(data));
    QCOMPARE(stored(QStringLiteral("inbox/whole.bin")), std::optional(data));

    // Unchecked (no SHA-256 given), a wrong SHA-256, and a body shorter than announced.
    VERIFY_OK(m_store->putFile(QStringLiteral("plain.txt"), 5, ConflictPolicy::Rename, {}, bodyOf("hello")));
    QCOMPARE(stored(QStringLiteral("plain.txt")), std::optional(QByteArray("hello")));
    const auto damaged = m_store->putFile(QStringLiteral("bad.bin"), data.size(), ConflictPolicy::Rename,
                                          QByteArray(64, '0'), bodyOf(data));
    QCOMPARE(damaged.error().code, ProtocolErrorCode::ChecksumMismatch);
    QCOMPARE(stored(QStringLiteral("bad.bin")), std::nullopt);
    const auto cut =
        m_store->putFile(QStringLiteral("cut.bin"), 100, ConflictPolicy::Rename, {}, bodyOf("short"));
    QCOMPARE(cut.error().code, ProtocolErrorCode::LengthMismatch);
    QCOMPARE(stored(QStringLiteral("cut.bin")), std::nullopt);
    QCOMPARE(m_store->usage({}, false).unfinishedUploads, 0); // a whole file is no upload
}

void StoreContract::conflictPolicies()
{
    const QByteArray original = testData(5000, 1);
    const QByteArray newer = testData(5000, 2);
    VERIFY_OK(upload(QStringLiteral("a.txt"), original, 2048));

    // A create reports the file already there, with its SHA-256 when the sizes are equal.
    const auto sameSize =
        m_store->createUpload(spec(QStringLiteral("a.txt"), 5000, 2048, ConflictPolicy::Rename, 2));
    QCOMPARE(sameSize.value().existing->size, 5000);
    QCOMPARE(sameSize.value().existing->sha256, sha256(original));
    const auto otherSize =
        m_store->createUpload(spec(QStringLiteral("a.txt"), 7000, 2048, ConflictPolicy::Rename, 3));
    QCOMPARE(otherSize.value().existing->size, 5000);
    QVERIFY(otherSize.value().existing->sha256.isEmpty());

    const auto renamed = upload(QStringLiteral("a.txt"), newer, 2048, ConflictPolicy::Rename, 6);
    QCOMPARE(renamed.value().path, QStringLiteral("a (1).txt"));
    QCOMPARE(stored(QStringLiteral("a (1).txt")), std::optional(newer));
    QCOMPARE(stored(QStringLiteral("a.txt")), std::optional(original));

    const auto skipped =
        m_store->createUpload(spec(QStringLiteral("a.txt"), 5000, 2048, ConflictPolicy::Skip, 4));
    QCOMPARE(skipped.value().kind, CreateOutcome::Kind::Skipped);
    QCOMPARE(m_store->createUpload(spec(QStringLiteral("a.txt"), 5000, 2048, ConflictPolicy::Fail, 5))
                 .error()
                 .code,
             ProtocolErrorCode::Conflict);
    const QByteArray third = testData(5000, 3);
    VERIFY_OK(upload(QStringLiteral("a.txt"), third, 2048, ConflictPolicy::Overwrite, 7));
    QCOMPARE(stored(QStringLiteral("a.txt")), std::optional(third));

    // Identical bytes are not stored twice, whatever the policy.
    const auto identical = upload(QStringLiteral("a.txt"), third, 2048, ConflictPolicy::Rename, 8);
    QCOMPARE(identical.value().status, FinishedFile::Status::Skipped);
    QCOMPARE(stored(QStringLiteral("a (2).txt")), std::nullopt);

    // The same policies for a whole-file PUT.
    QCOMPARE(
        m_store->putFile(QStringLiteral("a.txt"), 5, ConflictPolicy::Fail, {}, bodyOf("other")).error().code,
        ProtocolErrorCode::Conflict);
    QCOMPARE(m_store->putFile(QStringLiteral("a.txt"), 5, ConflictPolicy::Skip, {}, bodyOf("other"))
                 .value()
                 .status,
             FinishedFile::Status::Skipped);
    QCOMPARE(m_store->putFile(QStringLiteral("a.txt"), 5, ConflictPolicy::Rename, {}, bodyOf("other"))
                 .value()
                 .path,
             QStringLiteral("a (2).txt"));
    VERIFY_OK(m_store->putFile(QStringLiteral("a.txt"), 5, ConflictPolicy::Overwrite, {}, bodyOf("other")));
    QCOMPARE(stored(QStringLiteral("a.txt")), std::optional(QByteArray("other")));
}

void StoreContract::emptyFile()
{
    const auto created = m_store->createUpload(spec(QStringLiteral("empty"), 0, 1024));
    VERIFY_OK(created);
    QCOMPARE(created.value().upload.chunkCount, 0);
    VERIFY_OK(m_store->completeUpload(created.value().upload.id, sha256({})));
    QCOMPARE(stored(QStringLiteral("empty")), std::optional(QByteArray("")));
    VERIFY_OK(m_store->putFile(QStringLiteral("empty2"), 0, ConflictPolicy::Rename, {}, bodyOf({})));
    QCOMPARE(stored(QStringLiteral("empty2")), std::optional(QByteArray("")));
}

void StoreContract::sameChunkFromTwoThreads()
{
    // Two ports, or two receiver processes, sending one chunk at once: one stores it, the other
    // finds it held.
    const QByteArray data = testData(4 << 20, 6);
    const QByteArray id =
        m_store->createUpload(spec(QStringLiteral("race.bin"), data.size(), data.size())).value().upload.id;
    std::optional<Result<ChunkOutcome>> results[2];
    std::thread first([&] { results[0] = writeChunk(*m_store, id, data, data.size(), 0); });
    std::thread second([&] { results[1] = writeChunk(*m_store, id, data, data.size(), 0); });
    first.join();
    second.join();
    VERIFY_OK(*results[0]);
    VERIFY_OK(*results[1]);
    QCOMPARE(int(results[0]->value().duplicate) + int(results[1]->value().duplicate), 1);
    VERIFY_OK(m_store->completeUpload(id, sha256(data)));
    QCOMPARE(stored(QStringLiteral("race.bin")), std::optional(data));
}

void StoreContract::usage()
{
    VERIFY_OK(m_store->createUpload(spec(QStringLiteral("alice/a.bin"), 3000, 1000)));
    VERIFY_OK(m_store->createUpload(spec(QStringLiteral("alice/deep/b.bin"), 5000, 1000)));
    VERIFY_OK(m_store->createUpload(spec(QStringLiteral("bob/c.bin"), 7000, 1000)));
    VERIFY_OK(upload(QStringLiteral("alice/done.bin"), testData(2000), 1000));
    VERIFY_OK(
        m_store->putFile(QStringLiteral("alice2/x.bin"), 4, ConflictPolicy::Rename, {}, bodyOf("xxxx")));

    const FolderUsage alice = m_store->usage(QStringLiteral("alice"), true);
    QCOMPARE(alice.unfinishedUploads, 2);
    QCOMPARE(alice.unfinishedBytes, 8000); // at their full size
    QCOMPARE(alice.finishedBytes, 2000);   // not alice2/, a folder of its own
    QCOMPARE(alice.totalBytes(), 10000);
    const FolderUsage bob = m_store->usage(QStringLiteral("bob"), false);
    QCOMPARE(bob.unfinishedUploads, 1);
    QCOMPARE(bob.unfinishedBytes, 7000);
    QCOMPARE(bob.finishedBytes, 0); // not asked for
    QCOMPARE(m_store->usage({}, false).unfinishedUploads, 3);
    QCOMPARE(m_store->usage({}, true).finishedBytes, 2004);
}

void StoreContract::expiry()
{
    using namespace std::chrono_literals;
    const auto now = std::chrono::system_clock::now();
    VERIFY_OK(upload(QStringLiteral("kept.bin"), testData(3000), 1000));
    const QByteArray left =
        m_store->createUpload(spec(QStringLiteral("left.bin"), 100, 100)).value().upload.id;

    // Nothing is old yet; 0 means never, however old.
    QCOMPARE(m_store->sweepExpired(1h, now).expiredUploads, 0);
    QCOMPARE(m_store->sweepExpired(0s, now + 24h * 3650).expiredUploads, 0);
    VERIFY_OK(m_store->findUpload(left));

    const SweepReport report = m_store->sweepExpired(1h, now + 2h);
    QCOMPARE(report.expiredUploads, 1);
    QVERIFY(report.lines.size() >= 1);
    QCOMPARE(m_store->findUpload(left).error().code, ProtocolErrorCode::NoSuchUpload);
    QCOMPARE(m_store->usage({}, false).unfinishedUploads, 0);
    // Finished files are never removed; the same key starts afresh.
    QCOMPARE(stored(QStringLiteral("kept.bin")), std::optional(testData(3000)));
    QCOMPARE(m_store->createUpload(spec(QStringLiteral("left.bin"), 100, 100)).value().kind,
             CreateOutcome::Kind::Created);
}
