#include "HashWorker.h"

#include "ChunkHash.h"

#include <QFile>
#include <QMetaObject>

namespace multilane {

static std::optional<std::uint64_t> hashRange(const QString &path, qint64 offset, qint64 length)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Unbuffered) || !file.seek(offset))
        return std::nullopt;
    ChunkHash hash;
    QByteArray buffer(int(std::min<qint64>(length, 1 << 20)), Qt::Uninitialized);
    qint64 remaining = length;
    while (remaining > 0) {
        const qint64 got = file.read(buffer.data(), std::min<qint64>(remaining, buffer.size()));
        if (got <= 0)
            return std::nullopt;
        hash.addData(buffer.constData(), std::size_t(got));
        remaining -= got;
    }
    return hash.value();
}

HashWorker::HashWorker(QObject *parent)
    : QObject(parent)
{
    m_chunkPool.setMaxThreadCount(2);
    m_filePool.setMaxThreadCount(1);
}

HashWorker::~HashWorker()
{
    // Queued results addressed to a deleted object are dropped by Qt; the threads must finish
    // before the members go, though.
    m_chunkPool.clear();
    m_filePool.clear();
    m_chunkPool.waitForDone();
    m_filePool.waitForDone();
}

void HashWorker::hashChunk(int job, int chunk, const QString &path, qint64 offset, qint64 length)
{
    m_chunkPool.start([this, job, chunk, path, offset, length] {
        const std::optional<std::uint64_t> hash = hashRange(path, offset, length);
        QMetaObject::invokeMethod(
            this, [this, job, chunk, hash] { Q_EMIT chunkHashed(job, chunk, hash); }, Qt::QueuedConnection);
    });
}

void HashWorker::hashFile(int job, const QString &path, qint64 chunkSize)
{
    m_filePool.start([this, job, path, chunkSize] {
        const std::optional<FileDigest> digest = FileDigest::ofFile(path, chunkSize);
        QMetaObject::invokeMethod(
            this, [this, job, digest] { Q_EMIT fileHashed(job, digest); }, Qt::QueuedConnection);
    });
}

} // namespace multilane
