#include "LocalFolderStore.h"

#include "ChunkHash.h"
#include "ChunkLayout.h"
#include "ChunkRecordFile.h"
#include "DiskSpace.h"
#include "DoneRecord.h"
#include "FileOps.h"
#include "FolderScope.h"
#include "HashPipeline.h"
#include "PartWriter.h"
#include "Sha256.h"
#include "StorageError.h"
#include "UploadId.h"
#include "UploadPath.h"
#include "UploadRecord.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace multilane {

namespace {

QString listForMessage(const QList<qint64> &indexes)
{
    QStringList shown;
    for (qsizetype i = 0; i < indexes.size() && i < 10; ++i)
        shown.append(QString::number(indexes.at(i)));
    if (indexes.size() > 10)
        shown.append(QStringLiteral("… (%1 in all)").arg(indexes.size()));
    return shown.join(QStringLiteral(", "));
}

} // namespace

LocalFolderStore::LocalFolderStore(const QString &storageFolder)
    : m_storageFolder(QDir(storageFolder).absolutePath())
    , m_root(QFile::encodeName(m_storageFolder))
    , m_uploads(m_root + '/' + UploadPath::PrivateFolder + "/uploads")
    , m_folderSync(FileOps::syncDirectory)
    , m_placer(m_root, m_folderSync)
{}

std::optional<ProtocolError> LocalFolderStore::prepare()
{
    if (!QDir().mkpath(m_storageFolder) || !QDir().mkpath(QFile::decodeName(m_uploads)))
        return ProtocolError::make(
            ProtocolErrorCode::StorageError,
            QStringLiteral("cannot create the storage folder %1; create it yourself or "
                           "choose another with --storage")
                .arg(m_storageFolder));
    if (::access(m_uploads.constData(), W_OK) != 0)
        return StorageError::fromErrno(
            errno, QStringLiteral("cannot write to %1").arg(QFile::decodeName(m_uploads)));
    return std::nullopt;
}

UploadFiles LocalFolderStore::filesOf(const QByteArray &id) const
{
    return UploadFiles(m_root, m_uploads, id);
}

Result<CreateOutcome> LocalFolderStore::createUpload(const UploadSpec &spec)
{
    const UploadFiles files = filesOf(UploadId::forKey(spec.path, spec.size, spec.mtime));
    CreateOutcome outcome;
    if (const auto done = files.readDone()) {
        outcome.kind = CreateOutcome::Kind::AlreadyDone;
        outcome.finished = *done;
        return outcome;
    }
    const auto preflight = m_placer.preflight(spec.path, spec.size, spec.onConflict, spec.sha256);
    if (!preflight)
        return preflight.error();
    outcome.existing = preflight.value().existing;
    if (preflight.value().skipped) {
        outcome.kind = CreateOutcome::Kind::Skipped;
        outcome.finished = *preflight.value().skipped;
        return outcome;
    }

    // The record is the commit point: whoever links it first fixes the chunk size for everyone.
    const int linkError = FileOps::createFileOnce(files.path(".json"), UploadRecord::encode(spec));
    if (linkError != 0 && linkError != EEXIST)
        return StorageError::fromErrno(linkError,
                                       QStringLiteral("cannot record the upload of '%1'").arg(spec.path));
    outcome.kind = linkError == 0 ? CreateOutcome::Kind::Created : CreateOutcome::Kind::Found;
    if (outcome.kind == CreateOutcome::Kind::Found) // a resumed upload counts as touched (expiry)
        ::utimensat(AT_FDCWD, files.path(".json").constData(), nullptr, 0);
    const auto stored = files.readRecord();
    if (!stored)
        return stored.error();
    if (const int error = files.ensureDataFiles(stored.value()); error != 0)
        return StorageError::fromErrno(
            error,
            QStringLiteral("cannot reserve %1 bytes for '%2'").arg(stored.value().size).arg(spec.path));
    ChunkRecordFile records;
    if (const int error = records.open(files.path(".chunks")); error != 0)
        return StorageError::fromErrno(
            error, QStringLiteral("cannot open the chunk records of '%1'").arg(spec.path));
    auto state = files.state(stored.value(), records);
    if (!state)
        return state.error();
    outcome.upload = state.value();
    return outcome;
}

PrefixHasher::Upload LocalFolderStore::prefixUpload(const UploadFiles &files, const UploadSpec &spec)
{
    return {files.id(), files.path(".part"), files.path(".chunks"), spec.size, spec.chunkSize};
}

std::optional<QByteArray> LocalFolderStore::hashPart(const UploadFiles &files, const UploadSpec &spec,
                                                     const ChunkRecordFile &records, int partFd)
{
    auto prefix = m_prefixes.take(prefixUpload(files, spec), records);
    const std::unique_ptr<Sha256> hash = prefix ? std::move(prefix->hash) : std::make_unique<Sha256>();
    const int error =
        FileOps::readRange(partFd, prefix ? prefix->bytes : 0, spec.size,
                           [&hash](const char *data, std::size_t n) { hash->addData(data, n); });
    if (error != 0) {
        errno = error;
        return std::nullopt;
    }
    return hash->hexDigest();
}

SweepReport LocalFolderStore::sweepExpired(std::chrono::seconds expireAfter,
                                           std::chrono::system_clock::time_point now)
{
    UploadSweeper::Policy policy;
    policy.expireAfter = expireAfter;
    SweepReport report;
    for (const UploadSweeper::Removed &removed : UploadSweeper(m_uploads, policy).sweep(now)) {
        if (!removed.id.isEmpty())
            m_prefixes.forget(removed.id);
        if (removed.expiredUpload)
            ++report.expiredUploads;
        report.lines.append(removed.line);
    }
    return report;
}

StorageSpace LocalFolderStore::space()
{
    return DiskSpace::of(m_storageFolder);
}

Result<UploadState> LocalFolderStore::findUpload(const QByteArray &id)
{
    const UploadFiles files = filesOf(id);
    const auto spec = files.readRecord();
    if (!spec)
        return spec.error();
    ChunkRecordFile records;
    if (records.open(files.path(".chunks")) != 0)
        return files.noSuchUpload();
    return files.state(spec.value(), records);
}

Result<UploadState> LocalFolderStore::findUploadByKey(const UploadKey &key)
{
    return findUpload(UploadId::forKey(key.path, key.size, key.mtime));
}

Result<ChunkOutcome> LocalFolderStore::drainAsDuplicate(qint64 index, const BodyReader &body) const
{
    if (!body([](const char *, std::size_t) { return true; }))
        return ProtocolError::make(
            ProtocolErrorCode::LengthMismatch,
            QStringLiteral("the body of chunk %1 ended early; send it again").arg(index));
    return ChunkOutcome{index, true};
}

Result<ChunkOutcome> LocalFolderStore::writeChunk(const QByteArray &id, qint64 index, qint64 length,
                                                  quint64 expectedHash, const BodyReader &body)
{
    const UploadFiles files = filesOf(id);
    const auto spec = files.readRecord();
    if (!spec) {
        // A chunk racing the complete that finished the upload: it is there already.
        if (spec.error().code == ProtocolErrorCode::NoSuchUpload && files.readDone())
            return drainAsDuplicate(index, body);
        return spec.error();
    }
    const ChunkLayout layout(spec.value().size, spec.value().chunkSize);
    if (!layout.contains(index))
        return ProtocolError::make(ProtocolErrorCode::BadRequest,
                                   QStringLiteral("chunk index %1 is out of range: upload %2 has %3 chunks")
                                       .arg(index)
                                       .arg(QString::fromLatin1(id))
                                       .arg(layout.chunkCount()));
    const qint64 expectedLength = layout.length(index);
    const QString what = QStringLiteral("chunk %1").arg(index);
    if (length != expectedLength)
        return ProtocolError::make(
            length > expectedLength ? ProtocolErrorCode::TooLarge : ProtocolErrorCode::LengthMismatch,
            QStringLiteral("%1 is %2 bytes long, the request says %3; send exactly the "
                           "chunk's bytes (chunkSize %4)")
                .arg(what)
                .arg(expectedLength)
                .arg(length)
                .arg(spec.value().chunkSize));

    ChunkRecordFile records;
    if (records.open(files.path(".chunks")) != 0)
        return files.noSuchUpload();
    if (const int error = records.lockRecord(index); error != 0)
        return StorageError::fromErrno(error, QStringLiteral("cannot lock the record of %1").arg(what));
    if (records.isRemoved())
        return files.readDone() ? drainAsDuplicate(index, body) : Result<ChunkOutcome>(files.noSuchUpload());
    const auto record = records.read(index);
    if (!record)
        return StorageError::fromErrno(EIO, QStringLiteral("cannot read the record of %1").arg(what));
    const PrefixHasher::Upload upload = prefixUpload(files, spec.value());
    if (record->held && record->hash == expectedHash) {
        auto drained = drainAsDuplicate(index, body);
        records.unlockRecord(index);
        m_prefixes.chunkStored(upload, index, false);
        return drained;
    }

    // Not held while the bytes change; held again only after they all arrived and matched.
    if (const int error = records.write(index, {}); error != 0)
        return StorageError::fromErrno(error, QStringLiteral("cannot update the record of %1").arg(what));
    const UniqueFd part(::open(files.path(".part").constData(), O_WRONLY | O_CLOEXEC));
    if (!part.isValid())
        return StorageError::fromErrno(
            errno, QStringLiteral("cannot open the data file of upload %1").arg(QString::fromLatin1(id)));
    ChunkHash hash;
    PartWriter writer(part.get(), layout.offset(index), expectedLength, nullptr, &m_writeLocks.of(id));
    const auto copied =
        writer.copy(body, [&hash](const char *data, std::size_t n) { hash.addData(data, n); });
    if (const auto problem = copied.problem(expectedLength, what))
        return *problem;
    if (hash.value() != expectedHash)
        return ProtocolError::make(ProtocolErrorCode::ChecksumMismatch,
                                   QStringLiteral("%1 arrived damaged (its XXH3 is %2, the request said %3); "
                                                  "send it again")
                                       .arg(what, QString::fromLatin1(ChunkHash::toHeader(hash.value())),
                                            QString::fromLatin1(ChunkHash::toHeader(expectedHash))));
    if (const int error = records.write(index, {expectedHash, true}); error != 0)
        return StorageError::fromErrno(error, QStringLiteral("cannot record %1").arg(what));
    records.unlockRecord(index); // before the prefix hasher looks at it
    m_prefixes.chunkStored(upload, index, true);
    return ChunkOutcome{index, false};
}

Result<FinishedFile> LocalFolderStore::completeUpload(const QByteArray &id, const QByteArray &expectedSha256)
{
    const UploadFiles files = filesOf(id);
    const auto spec = files.readRecord();
    if (!spec) {
        if (const auto done = files.readDone(); done && spec.error().code == ProtocolErrorCode::NoSuchUpload)
            return *done;
        return spec.error();
    }
    ChunkRecordFile records;
    if (records.open(files.path(".chunks")) != 0)
        return files.noSuchUpload();
    // Waits for chunk writers and for another complete; they cannot start while we hold it.
    if (const int error = records.lockAll(); error != 0)
        return StorageError::fromErrno(error,
                                       QStringLiteral("cannot lock upload %1").arg(QString::fromLatin1(id)));
    if (records.isRemoved()) {
        if (const auto done = files.readDone())
            return *done;
        return files.noSuchUpload();
    }
    return finish(files, spec.value(), records, expectedSha256);
}

std::optional<Result<FinishedFile>> LocalFolderStore::completeIfWhole(const QByteArray &id,
                                                                      const QByteArray &expectedSha256)
{
    const UploadFiles files = filesOf(id);
    const auto spec = files.readRecord();
    if (!spec)
        return std::nullopt;
    ChunkRecordFile records;
    if (records.open(files.path(".chunks")) != 0)
        return std::nullopt;
    const auto isWhole = [&] {
        const auto state = files.state(spec.value(), records);
        return state && state.value().received.size() == state.value().chunkCount;
    };
    // Looked at unlocked first: a chunk still being written is not held (it looks itself when it
    // is), so the lock below waits only for the prefix hasher or a complete that got there first.
    if (!isWhole() || records.lockAll() != 0 || records.isRemoved() || !isWhole())
        return std::nullopt;
    return finish(files, spec.value(), records, expectedSha256);
}

Result<FinishedFile> LocalFolderStore::finish(const UploadFiles &files, const UploadSpec &spec,
                                              ChunkRecordFile &records, const QByteArray &expectedSha256)
{
    const auto state = files.state(spec, records);
    if (!state)
        return state.error();
    if (state.value().received.size() != state.value().chunkCount) {
        ProtocolError error;
        for (qint64 index = 0, next = 0; index < state.value().chunkCount; ++index) {
            if (next < state.value().received.size() && state.value().received.at(next) == index)
                ++next;
            else
                error.missing.append(index);
        }
        error.code = ProtocolErrorCode::Incomplete;
        error.message = QStringLiteral("chunks %1 of '%2' have not arrived; send them, then complete again")
                            .arg(listForMessage(error.missing), spec.path);
        return error;
    }

    const QByteArray partPath = files.path(".part");
    const UniqueFd part(::open(partPath.constData(), O_RDONLY | O_CLOEXEC));
    const auto actual = part.isValid() ? hashPart(files, spec, records, part.get()) : std::nullopt;
    if (!actual)
        return StorageError::fromErrno(errno, QStringLiteral("cannot read the data of '%1'").arg(spec.path));
    if (*actual != expectedSha256) {
        records.clearAll(state.value().chunkCount);
        return ProtocolError::make(
            ProtocolErrorCode::ChecksumMismatch,
            QStringLiteral("the SHA-256 of '%1' is %2, not %3; the file changed or was "
                           "damaged — every chunk must be sent again")
                .arg(spec.path, QString::fromLatin1(*actual), QString::fromLatin1(expectedSha256)));
    }
    if (::fdatasync(part.get()) != 0)
        return StorageError::fromErrno(errno, QStringLiteral("cannot sync the data of '%1'").arg(spec.path));
    const auto placed = m_placer.place(partPath, spec.path, spec.onConflict, *actual);
    if (!placed)
        return placed.error();
    // Best effort: without it a repeated complete answers no_such_upload, the file is safe anyway.
    FileOps::replaceFile(files.path(".done"), DoneRecord::encode(placed.value(), spec.size));
    ::unlink(files.path(".json").constData());
    ::unlink(files.path(".chunks").constData()); // while still locked: waiting writers see it gone
    return placed;
}

Result<Done> LocalFolderStore::abortUpload(const QByteArray &id)
{
    const UploadFiles files = filesOf(id);
    if (!UploadId::isValid(id))
        return files.noSuchUpload();
    ChunkRecordFile records;
    if (records.open(files.path(".chunks")) == 0)
        records.lockAll(); // let a running chunk write or complete finish first
    m_prefixes.forget(id);
    bool removedAny = false;
    for (const char *suffix : {".json", ".chunks", ".part", ".done"})
        removedAny = ::unlink(files.path(suffix).constData()) == 0 || removedAny;
    if (!removedAny)
        return files.noSuchUpload();
    return Done{};
}

Result<FinishedFile> LocalFolderStore::putFile(const QString &path, qint64 size, ConflictPolicy onConflict,
                                               const QByteArray &expectedSha256, const BodyReader &body)
{
    const auto preflight = m_placer.preflight(path, size, onConflict, expectedSha256);
    if (!preflight)
        return preflight.error();
    if (preflight.value().skipped)
        return *preflight.value().skipped;
    const QByteArray temporary = FileOps::temporaryName(m_uploads + "/put") + ".part";
    const UniqueFd part(::open(temporary.constData(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (!part.isValid())
        return StorageError::fromErrno(errno, QStringLiteral("cannot create a file for '%1'").arg(path));
    const auto fail = [&temporary](ProtocolError error) {
        ::unlink(temporary.constData());
        return Result<FinishedFile>(std::move(error));
    };
    if (const int error = PartWriter::presize(part.get(), size); error != 0)
        return fail(StorageError::fromErrno(
            error, QStringLiteral("cannot reserve %1 bytes for '%2'").arg(size).arg(path)));
    // A body bigger than one buffer is hashed on a second thread while this one receives and writes.
    Sha256 hash;
    std::optional<HashPipeline> pipeline;
    if (size > qint64(PartWriter::BufferSize))
        pipeline.emplace(PartWriter::BufferSize);
    PartWriter writer(part.get(), 0, size, pipeline ? &*pipeline : nullptr);
    const auto copied = writer.copy(body, [&hash, &pipeline](const char *data, std::size_t n) {
        if (!pipeline)
            hash.addData(data, n);
    });
    if (const auto problem = copied.problem(size, QStringLiteral("'%1'").arg(path)))
        return fail(*problem);
    const QByteArray actual = pipeline ? pipeline->finish() : hash.hexDigest();
    if (!expectedSha256.isEmpty() && actual != expectedSha256)
        return fail(ProtocolError::make(
            ProtocolErrorCode::ChecksumMismatch,
            QStringLiteral("the SHA-256 of '%1' is %2, not %3; send the file again")
                .arg(path, QString::fromLatin1(actual), QString::fromLatin1(expectedSha256))));
    if (::fdatasync(part.get()) != 0)
        return fail(StorageError::fromErrno(errno, QStringLiteral("cannot sync the data of '%1'").arg(path)));
    const auto placed = m_placer.place(temporary, path, onConflict, actual);
    if (!placed)
        return fail(placed.error());
    return placed;
}

FolderUsage LocalFolderStore::usage(const QString &folder, bool withFinishedBytes)
{
    FolderUsage usage;
    const QStringList records =
        QDir(QFile::decodeName(m_uploads)).entryList({QStringLiteral("*.json")}, QDir::Files | QDir::Hidden);
    for (const QString &name : records) {
        // Counting the whole storage needs no record read, which keeps the common case cheap.
        if (folder.isEmpty() && !withFinishedBytes) {
            ++usage.unfinishedUploads;
            continue;
        }
        const auto content = FileOps::readSmallFile(m_uploads + '/' + QFile::encodeName(name));
        const auto spec = content ? UploadRecord::decode(*content) : std::nullopt;
        if (!spec || !FolderScope::contains(folder, spec->path))
            continue;
        ++usage.unfinishedUploads;
        usage.unfinishedBytes += spec->size;
    }
    if (withFinishedBytes)
        usage.finishedBytes = finishedBytesBelow(folder);
    return usage;
}

qint64 LocalFolderStore::finishedBytesBelow(const QString &folder) const
{
    const QString top = folder.isEmpty() ? m_storageFolder : m_storageFolder % u'/' % folder;
    const QString privateFolder = m_storageFolder % u'/' % QLatin1String(UploadPath::PrivateFolder) % u'/';
    qint64 bytes = 0;
    // Symbolic links are not followed: an administrator's link to elsewhere is not the token's data.
    QDirIterator files(top, QDir::Files | QDir::Hidden | QDir::NoSymLinks, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        files.next();
        if (!files.filePath().startsWith(privateFolder))
            bytes += files.fileInfo().size();
    }
    return bytes;
}

std::optional<QString> LocalFolderStore::uploadPath(const QByteArray &id)
{
    const UploadFiles files = filesOf(id);
    if (const auto spec = files.readRecord())
        return spec.value().path;
    if (!UploadId::isValid(id))
        return std::nullopt;
    // A finished upload: its id still names the path it was created for (ids derive from it).
    const auto content = FileOps::readSmallFile(files.path(".done"));
    if (const auto done = content ? DoneRecord::decode(*content) : std::nullopt)
        return done->file.path;
    return std::nullopt;
}

} // namespace multilane
