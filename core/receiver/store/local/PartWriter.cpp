#include "PartWriter.h"

#include "HashPipeline.h"
#include "StorageError.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace multilane {

PartWriter::PartWriter(int fd, qint64 offset, qint64 maxLength, HashPipeline *pipeline, std::mutex *writeLock)
    : m_fd(fd)
    , m_offset(offset)
    , m_maxLength(maxLength)
    , m_pipeline(pipeline)
    , m_writeLock(writeLock)
    // No bigger than the body: a megabyte for a file of 1 KiB cost a page fault a page touched
    // and, freed, an madvise() that gave the pages back, for every file.
    , m_capacity(pipeline ? BufferSize : std::size_t(std::clamp<qint64>(maxLength, 1, qint64(BufferSize))))
    , m_buffer(pipeline ? pipeline->nextBuffer() : std::unique_ptr<char[]>(new char[m_capacity]))
{
    Q_ASSERT(!pipeline || pipeline->bufferSize() == BufferSize);
}

PartWriter::~PartWriter() = default;

int PartWriter::presize(int fd, qint64 size)
{
    if (size > 0) {
        // fallocate() grows a shorter file to `size`; only a longer one still needs cutting.
        if (::fallocate(fd, 0, 0, size) == 0)
            return 0;
        if (errno != EOPNOTSUPP && errno != ENOSYS)
            return errno;
    }
    return ::ftruncate(fd, size) == 0 ? 0 : errno;
}

std::optional<ProtocolError> PartWriter::Result::problem(qint64 expected, const QString &what) const
{
    if (writeError != 0)
        return StorageError::fromErrno(writeError, QStringLiteral("cannot write %1").arg(what));
    if (tooLong)
        return ProtocolError::make(
            ProtocolErrorCode::TooLarge,
            QStringLiteral("the body of %1 is longer than its %2 bytes").arg(what).arg(expected));
    if (!complete || bytes != expected)
        return ProtocolError::make(ProtocolErrorCode::LengthMismatch,
                                   QStringLiteral("the body of %1 ended after %2 of %3 bytes; send it again")
                                       .arg(what)
                                       .arg(bytes)
                                       .arg(expected));
    return std::nullopt;
}

PartWriter::Result PartWriter::copy(const BodyReader &body, const Observer &observe)
{
    const bool readAll = body([&](const char *data, std::size_t length) {
        if (m_result.bytes + qint64(length) > m_maxLength) {
            m_result.tooLong = true;
            return false;
        }
        if (observe)
            observe(data, length);
        m_result.bytes += qint64(length);
        return append(data, length);
    });
    m_result.complete = readAll && flush();
    return m_result;
}

bool PartWriter::append(const char *data, std::size_t length)
{
    while (length > 0) {
        const std::size_t take = std::min(length, m_capacity - m_buffered);
        std::memcpy(m_buffer.get() + m_buffered, data, take);
        m_buffered += take;
        data += take;
        length -= take;
        if (m_buffered == m_capacity && !flush())
            return false;
    }
    return true;
}

bool PartWriter::flush()
{
    const char *data = m_buffer.get();
    if (m_pipeline && m_buffered > 0) // hashed while we write it
        m_pipeline->submit(std::move(m_buffer), m_buffered);
    std::unique_lock<std::mutex> locker;
    if (m_writeLock)
        locker = std::unique_lock<std::mutex>(*m_writeLock);
    std::size_t done = 0;
    while (done < m_buffered) {
        const ssize_t wrote = ::pwrite(m_fd, data + done, m_buffered - done, m_offset);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote <= 0) {
            m_result.writeError = wrote < 0 ? errno : EIO;
            return false;
        }
        done += std::size_t(wrote);
        m_offset += wrote;
    }
    if (!m_buffer)
        m_buffer = m_pipeline->nextBuffer();
    m_buffered = 0;
    return true;
}

} // namespace multilane
