#include "ChunkRecordFile.h"

#include <QtEndian>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace multilane {

int ChunkRecordFile::ensure(const QByteArray &path, qint64 chunkCount)
{
    UniqueFd fd(::open(path.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (!fd.isValid())
        return errno;
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0)
        return errno;
    const qint64 wanted = chunkCount * RecordSize;
    if (info.st_size != wanted && ::ftruncate(fd.get(), wanted) != 0)
        return errno;
    return 0;
}

int ChunkRecordFile::open(const QByteArray &path)
{
    m_fd = UniqueFd(::open(path.constData(), O_RDWR | O_CLOEXEC));
    return m_fd.isValid() ? 0 : errno;
}

int ChunkRecordFile::lockRecord(qint64 index)
{
    return lock(index * RecordSize, RecordSize);
}

int ChunkRecordFile::lockAll()
{
    return lock(0, 0); // length 0: to the end of the file, however long it grows
}

int ChunkRecordFile::tryLockRecord(qint64 index)
{
    const int error = lock(index * RecordSize, RecordSize, F_OFD_SETLK);
    return error == EACCES ? EAGAIN : error;
}

int ChunkRecordFile::tryLockAll()
{
    const int error = lock(0, 0, F_OFD_SETLK);
    return error == EACCES ? EAGAIN : error;
}

int ChunkRecordFile::unlockRecord(qint64 index)
{
    return lock(index * RecordSize, RecordSize, F_OFD_SETLK, F_UNLCK);
}

int ChunkRecordFile::lock(qint64 start, qint64 length, int command, short type)
{
    struct flock request {};
    request.l_type = type;
    request.l_whence = SEEK_SET;
    request.l_start = start;
    request.l_len = length;
    request.l_pid = 0; // required for OFD locks
    while (::fcntl(m_fd.get(), command, &request) != 0) {
        if (errno != EINTR)
            return errno;
    }
    return 0;
}

bool ChunkRecordFile::isRemoved() const
{
    struct stat info {};
    return ::fstat(m_fd.get(), &info) != 0 || info.st_nlink == 0;
}

std::optional<ChunkRecordFile::Record> ChunkRecordFile::read(qint64 index) const
{
    unsigned char bytes[RecordSize] = {};
    if (::pread(m_fd.get(), bytes, RecordSize, index * RecordSize) != RecordSize)
        return std::nullopt;
    return Record{qFromLittleEndian<quint64>(bytes), bytes[8] != 0};
}

int ChunkRecordFile::write(qint64 index, const Record &record)
{
    unsigned char bytes[RecordSize] = {};
    qToLittleEndian<quint64>(record.hash, bytes);
    bytes[8] = record.held ? 1 : 0;
    const ssize_t wrote = ::pwrite(m_fd.get(), bytes, RecordSize, index * RecordSize);
    if (wrote == RecordSize)
        return 0;
    return wrote < 0 ? errno : EIO;
}

std::optional<QByteArray> ChunkRecordFile::rawRecords(qint64 first, qint64 count) const
{
    QByteArray all(count * RecordSize, Qt::Uninitialized);
    qint64 done = 0;
    while (done < all.size()) {
        const ssize_t got =
            ::pread(m_fd.get(), all.data() + done, std::size_t(all.size() - done), first * RecordSize + done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return std::nullopt;
        done += got;
    }
    return all;
}

std::optional<ChunkRecordFile::HeldChunks> ChunkRecordFile::heldChunks(qint64 chunkCount) const
{
    // Read without a lock: held=1 is only written after the chunk's data, so whatever this sees
    // held really is; a chunk being written right now simply shows as not held.
    const auto raw = rawRecords(0, chunkCount);
    if (!raw)
        return std::nullopt;
    const QByteArray &all = *raw;
    HeldChunks held;
    for (qint64 index = 0; index < chunkCount; ++index) {
        if (all.at(index * RecordSize + 8) == 0)
            continue;
        held.indexes.append(index);
        held.hashes.append(qFromLittleEndian<quint64>(all.constData() + index * RecordSize));
    }
    return held;
}

int ChunkRecordFile::clearAll(qint64 chunkCount)
{
    const QByteArray zeros(chunkCount * RecordSize, '\0');
    const ssize_t wrote = ::pwrite(m_fd.get(), zeros.constData(), std::size_t(zeros.size()), 0);
    if (wrote == zeros.size())
        return 0;
    return wrote < 0 ? errno : EIO;
}

} // namespace multilane
