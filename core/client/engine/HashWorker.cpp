#include "HashWorker.h"

#include <QMetaObject>

namespace multilane {

HashWorker::HashWorker(ChunkChecksumKind kind, QObject *parent)
    : ChunkHasher(parent)
    , m_kind(kind)
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
        const std::optional<QByteArray> checksum = ChunkChecksum::ofRange(m_kind, path, offset, length);
        QMetaObject::invokeMethod(
            this, [this, job, chunk, checksum] { Q_EMIT chunkHashed(job, chunk, checksum); },
            Qt::QueuedConnection);
    });
}

void HashWorker::hashFile(int job, const QString &path, qint64 chunkSize)
{
    m_filePool.start([this, job, path, chunkSize] {
        const std::optional<FileDigest> digest = FileDigest::ofFile(path, chunkSize, m_kind);
        QMetaObject::invokeMethod(
            this, [this, job, digest] { Q_EMIT fileHashed(job, digest); }, Qt::QueuedConnection);
    });
}

} // namespace multilane
