#include "TransferJob.h"

#include <algorithm>

namespace multilane {

QString transferStateName(TransferState state)
{
    switch (state) {
    case TransferState::Queued:
        return QStringLiteral("queued");
    case TransferState::Preparing:
        return QStringLiteral("preparing");
    case TransferState::Uploading:
        return QStringLiteral("uploading");
    case TransferState::Completing:
        return QStringLiteral("verifying");
    case TransferState::Done:
        return QStringLiteral("done");
    case TransferState::Skipped:
        return QStringLiteral("skipped");
    case TransferState::Failed:
        return QStringLiteral("failed");
    case TransferState::Cancelled:
        return QStringLiteral("cancelled");
    }
    return {};
}

bool isTerminal(TransferState state)
{
    return state == TransferState::Done || state == TransferState::Skipped ||
           state == TransferState::Failed || state == TransferState::Cancelled;
}

TransferJob::TransferJob(int id, const SourceFile &source, qint64 chunkSize)
    : m_id(id)
    , m_source(source)
    , m_planner(source.size, chunkSize)
{}

void TransferJob::attachUpload(const QString &uploadId, qint64 chunkSize, const QList<HeldChunk> &held)
{
    m_heldToVerify.clear();
    m_uploadId = uploadId;
    m_planner = ChunkPlanner(m_source.size, chunkSize);
    m_pending.clear();
    m_ready.clear();
    m_acked = QList<bool>(m_planner.chunkCount(), false);
    m_receipts = QList<QByteArray>(m_planner.chunkCount());
    m_acknowledged = 0;
    m_acknowledgedBytes = 0;
    for (const HeldChunk &chunk : held) {
        const int index = chunk.index;
        if (index < 0 || index >= m_planner.chunkCount() || m_acked.at(index))
            continue;
        m_acked[index] = true;
        m_receipts[index] = chunk.receipt;
        ++m_acknowledged;
        m_acknowledgedBytes += m_planner.chunk(index).length;
        if (!chunk.receipt.isEmpty())
            m_heldToVerify.insert(index, chunk.receipt);
    }
    for (int index = 0; index < m_planner.chunkCount(); ++index) {
        if (!m_acked.at(index))
            m_pending.append(index);
    }
}

bool TransferJob::isReadyToCreate() const
{
    // A resumed upload is asked about first; it was created with its metadata long ago.
    const bool waitsForHash = sha256BeforeCreate && known.uploadId.isEmpty() && m_sha256.isEmpty();
    return m_state == TransferState::Preparing && needsCreate && !requestInFlight && !waitsForHash;
}

void TransferJob::setSourceChunkChecksums(qint64 chunkSize, const QList<QByteArray> &checksums)
{
    m_sourceChunkHashSize = chunkSize;
    m_sourceChunkChecksums = checksums;
}

QList<int> TransferJob::checkHeldChunks()
{
    Q_ASSERT(m_sourceChunkHashSize == m_planner.chunkSize());
    QList<int> differing;
    for (auto it = m_heldToVerify.cbegin(); it != m_heldToVerify.cend(); ++it) {
        const int index = it.key();
        if (index >= m_sourceChunkChecksums.size() || m_sourceChunkChecksums.at(index) != it.value())
            differing.append(index);
    }
    m_heldToVerify.clear();
    std::sort(differing.begin(), differing.end());
    return differing;
}

void TransferJob::unacknowledge(int index)
{
    if (index < 0 || index >= m_acked.size() || !m_acked.at(index))
        return;
    m_acked[index] = false;
    m_receipts[index].clear();
    --m_acknowledged;
    m_acknowledgedBytes -= m_planner.chunk(index).length;
    m_pending.append(index);
}

void TransferJob::resetForRetry()
{
    *this = TransferJob(m_id, m_source, m_planner.chunkSize());
}

int TransferJob::takePendingChunk()
{
    return m_pending.takeFirst();
}

void TransferJob::returnToPending(int index)
{
    if (!m_acked.value(index, true) && !m_pending.contains(index))
        m_pending.prepend(index);
}

ReadyChunk TransferJob::takeReadyChunk()
{
    return m_ready.takeFirst();
}

void TransferJob::acknowledge(int index, const QByteArray &receipt)
{
    if (index < 0 || index >= m_acked.size() || m_acked.at(index))
        return;
    m_acked[index] = true;
    m_receipts[index] = receipt;
    ++m_acknowledged;
    m_acknowledgedBytes += m_planner.chunk(index).length;
}

} // namespace multilane
