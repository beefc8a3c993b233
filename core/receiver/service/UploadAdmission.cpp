#include "UploadAdmission.h"

#include "ByteSize.h"
#include "ChunkLayout.h"
#include "UploadStore.h"

#include <QStringBuilder>

namespace multilane {

namespace {

QString folderName(const QString &folder)
{
    return folder.isEmpty() ? QStringLiteral("the whole storage folder")
                            : QStringLiteral("folder '%1'").arg(folder);
}

} // namespace

UploadAdmission::UploadAdmission(UploadStore &store, ReceiverLimits limits, FreeSpace freeSpace, Clock clock)
    : m_store(store)
    , m_limits(limits)
    , m_freeSpace(freeSpace ? std::move(freeSpace)
                            : FreeSpace([store = &store] { return store->space().freeBytes; }))
    , m_clock(clock ? std::move(clock) : Clock(&std::chrono::steady_clock::now))
{}

std::optional<ProtocolError> UploadAdmission::checkFileSize(const QString &path, qint64 size) const
{
    if (size <= m_limits.maxFileSize)
        return std::nullopt;
    ProtocolError error = ProtocolError::make(
        ProtocolErrorCode::FileTooLarge,
        QStringLiteral("'%1' is %2 (%3 bytes); this receiver accepts files of at most %4 (%5 bytes, "
                       "--max-file-size); ask its administrator to raise the limit or send a smaller file")
            .arg(path.left(200), ByteSize::format(size))
            .arg(size)
            .arg(ByteSize::format(m_limits.maxFileSize))
            .arg(m_limits.maxFileSize));
    error.figures.insert(QStringLiteral("maxFileSize"), m_limits.maxFileSize);
    return error;
}

std::optional<ProtocolError> UploadAdmission::checkChunkSize(qint64 chunkSize) const
{
    if (chunkSize <= m_limits.maxChunkSize)
        return std::nullopt;
    ProtocolError error = ProtocolError::make(
        ProtocolErrorCode::ChunkTooLarge,
        QStringLiteral(
            "a chunk of %1 bytes is larger than this receiver accepts (%2 bytes, --max-chunk-size); "
            "use a smaller chunk size")
            .arg(chunkSize)
            .arg(m_limits.maxChunkSize));
    error.figures.insert(QStringLiteral("maxChunkSize"), m_limits.maxChunkSize);
    return error;
}

std::optional<ProtocolError> UploadAdmission::checkStoreLimits(const QString &path, qint64 size,
                                                               std::optional<qint64> chunkSize) const
{
    const StoreLimits store = m_store.limits();
    if (size > store.maxFileSize) {
        ProtocolError error = ProtocolError::make(
            ProtocolErrorCode::FileTooLarge,
            QStringLiteral(
                "'%1' is %2; this receiver's storage holds files of at most %3; send a smaller file")
                .arg(path.left(200), ByteSize::format(size), ByteSize::format(store.maxFileSize)));
        error.figures.insert(QStringLiteral("maxFileSize"), store.maxFileSize);
        return error;
    }
    if (!chunkSize)
        return std::nullopt;
    if (*chunkSize > store.maxChunkSize) {
        ProtocolError error = ProtocolError::make(
            ProtocolErrorCode::ChunkTooLarge,
            QStringLiteral("this receiver's storage takes chunks of at most %1 bytes, not %2; use a smaller "
                           "chunk size")
                .arg(store.maxChunkSize)
                .arg(*chunkSize));
        error.figures.insert(QStringLiteral("maxChunkSize"), store.maxChunkSize);
        return error;
    }
    const ChunkLayout layout(size, *chunkSize);
    if (!layout.fitsInOneChunk() && *chunkSize < store.minChunkSize)
        return ProtocolError::make(ProtocolErrorCode::BadRequest,
                                   QStringLiteral("this receiver's storage needs chunks of at least %1 bytes "
                                                  "(all but the last), not %2; use a larger chunkSize")
                                       .arg(store.minChunkSize)
                                       .arg(*chunkSize));
    if (layout.chunkCount() > store.maxChunkCount)
        return ProtocolError::make(ProtocolErrorCode::BadRequest,
                                   QStringLiteral("%1 bytes in chunks of %2 are %3 chunks; this receiver's "
                                                  "storage holds at most %4 per file; use a larger chunkSize")
                                       .arg(size)
                                       .arg(*chunkSize)
                                       .arg(layout.chunkCount())
                                       .arg(store.maxChunkCount));
    return std::nullopt;
}

std::optional<ProtocolError> UploadAdmission::admitNewFile(const AccessToken &token, const QString &path,
                                                           qint64 size, bool isUpload) const
{
    if (const auto tooLarge = checkFileSize(path, size))
        return tooLarge;
    if (isUpload) {
        const qint64 unfinished = m_store.usage(token.folder, false).unfinishedUploads;
        if (unfinished >= m_limits.maxUnfinished) {
            ProtocolError error = ProtocolError::make(
                ProtocolErrorCode::TooManyUploads,
                QStringLiteral("%1 unfinished uploads are already open in %2 (at most %3 per token, "
                               "--max-unfinished); finish or abort some (DELETE /v1/uploads/{id}) before "
                               "starting more")
                    .arg(unfinished)
                    .arg(folderName(token.folder))
                    .arg(m_limits.maxUnfinished));
            error.figures.insert(QStringLiteral("maxUnfinished"), m_limits.maxUnfinished);
            return error;
        }
    }
    if (const auto noRoom = checkReserve(path, size))
        return noRoom;
    return checkQuota(token, path, size, isUpload); // last: it charges the folder for what it admits
}

void UploadAdmission::wholeFileEnded(const AccessToken &token, qint64 size, bool stored) const
{
    if (!token.quota)
        return;
    const std::lock_guard<std::mutex> lock(m_usageMutex);
    const auto arriving = m_wholeFilesArriving.find(token.folder);
    if (arriving != m_wholeFilesArriving.end() && (*arriving -= size) <= 0)
        m_wholeFilesArriving.erase(arriving);
    // Stored: on disk now, but a usage measured before it landed does not have it yet.
    if (stored)
        chargeLocked(token.folder, size);
}

std::optional<ProtocolError> UploadAdmission::checkQuota(const AccessToken &token, const QString &path,
                                                         qint64 size, bool isUpload) const
{
    if (!token.quota)
        return std::nullopt;
    const qint64 quota = *token.quota;
    const std::lock_guard<std::mutex> lock(m_usageMutex);
    const qint64 used = usedBytesLocked(token.folder);
    if (used + size <= quota) {
        // An upload's record counts from its create on; a whole file only once it is placed.
        if (isUpload)
            chargeLocked(token.folder, size);
        else
            m_wholeFilesArriving[token.folder] += size;
        return std::nullopt;
    }
    const qint64 left = std::max<qint64>(0, quota - used);
    ProtocolError error = ProtocolError::make(
        ProtocolErrorCode::QuotaExceeded,
        QStringLiteral("token '%1' may keep %2 in %3 and uses %4 (finished files and unfinished uploads), "
                       "so %5 are left; '%6' needs %7. Remove files there, or ask the receiver's "
                       "administrator for a larger quota")
            .arg(token.id, ByteSize::format(quota), folderName(token.folder), ByteSize::format(used),
                 ByteSize::format(left), path.left(200), ByteSize::format(size)));
    error.figures.insert(QStringLiteral("quotaBytes"), quota);
    error.figures.insert(QStringLiteral("usedBytes"), used);
    error.figures.insert(QStringLiteral("requestedBytes"), size);
    return error;
}

qint64 UploadAdmission::usedBytesLocked(const QString &folder) const
{
    const qint64 arriving = m_wholeFilesArriving.value(folder);
    const auto now = m_clock();
    const auto cached = m_usage.constFind(folder);
    if (cached != m_usage.cend() && now - cached->measuredAt < UsageReuse)
        return cached->bytes + arriving;
    const qint64 bytes = m_store.usage(folder, true).totalBytes();
    m_usage.insert(folder, {bytes, now});
    return bytes + arriving;
}

void UploadAdmission::chargeLocked(const QString &folder, qint64 bytes) const
{
    const auto cached = m_usage.find(folder);
    if (cached != m_usage.end())
        cached->bytes += bytes;
}

std::optional<ProtocolError> UploadAdmission::checkReserve(const QString &path, qint64 size) const
{
    const auto available = m_freeSpace ? m_freeSpace() : std::nullopt;
    if (!available || *available - size >= m_limits.diskReserve)
        return std::nullopt; // a disk that cannot tell its free space is not refused on a guess
    ProtocolError error = ProtocolError::make(
        ProtocolErrorCode::InsufficientStorage,
        QStringLiteral(
            "the receiver's disk has %1 free and keeps %2 in reserve (--disk-reserve), so '%3' (%4) "
            "does not fit; free space on the receiver, or ask its administrator")
            .arg(ByteSize::format(*available), ByteSize::format(m_limits.diskReserve), path.left(200),
                 ByteSize::format(size)));
    error.figures.insert(QStringLiteral("freeBytes"), *available);
    error.figures.insert(QStringLiteral("reserveBytes"), m_limits.diskReserve);
    return error;
}

std::optional<ProtocolError> UploadAdmission::admitChunkWrite(qint64 index) const
{
    const auto available = m_freeSpace ? m_freeSpace() : std::nullopt;
    if (!available || *available >= m_limits.diskReserve)
        return std::nullopt;
    ProtocolError error = ProtocolError::make(
        ProtocolErrorCode::InsufficientStorage,
        QStringLiteral("the receiver's disk has only %1 free, less than the %2 it keeps in reserve "
                       "(--disk-reserve), so chunk %3 was not written; the upload is kept: send the chunk "
                       "again once space was freed on the receiver")
            .arg(ByteSize::format(*available), ByteSize::format(m_limits.diskReserve))
            .arg(index));
    error.figures.insert(QStringLiteral("freeBytes"), *available);
    error.figures.insert(QStringLiteral("reserveBytes"), m_limits.diskReserve);
    return error;
}

} // namespace multilane
