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

TransferJob::~TransferJob() = default;
TransferJob::TransferJob(TransferJob &&) noexcept = default;
TransferJob &TransferJob::operator=(TransferJob &&) noexcept = default;

TransferJob::ChunkBook &TransferJob::chunks()
{
    if (!m_chunks)
        m_chunks = std::make_unique<ChunkBook>();
    return *m_chunks;
}

static const QString noString;

const QString &TransferJob::uploadId() const
{
    return m_chunks ? m_chunks->uploadId : noString;
}

const QString &TransferJob::error() const
{
    return m_chunks ? m_chunks->error : noString;
}

void TransferJob::setError(const QString &error)
{
    if (m_chunks || !error.isEmpty())
        chunks().error = error;
}

void TransferJob::setRemotePath(const QString &path)
{
    m_remoteIsDestination = !path.isEmpty() && path == m_source.destinationPath;
    m_otherRemotePath.reset();
    if (!m_remoteIsDestination && !path.isEmpty())
        m_otherRemotePath = std::make_unique<QString>(path);
}

const QString &TransferJob::remotePath() const
{
    if (m_remoteIsDestination)
        return m_source.destinationPath;
    return m_otherRemotePath ? *m_otherRemotePath : noString;
}

const QByteArray &TransferJob::sha256() const
{
    static const QByteArray none;
    return m_chunks ? m_chunks->sha256 : none;
}

QList<int> TransferJob::endpointsUsed() const
{
    if (m_firstEndpoint < 0)
        return {};
    return m_laterEndpoints ? QList<int>{m_firstEndpoint} + *m_laterEndpoints : QList<int>{m_firstEndpoint};
}

void TransferJob::noteEndpointUsed(int endpoint)
{
    if (m_firstEndpoint < 0)
        m_firstEndpoint = endpoint;
    else if (endpoint != m_firstEndpoint) {
        if (!m_laterEndpoints)
            m_laterEndpoints = std::make_unique<QList<int>>();
        if (!m_laterEndpoints->contains(endpoint))
            m_laterEndpoints->append(endpoint);
    }
}

const KnownUpload &TransferJob::known() const
{
    static const KnownUpload none;
    return m_chunks ? m_chunks->known : none;
}

void TransferJob::setKnown(const KnownUpload &known)
{
    if (m_chunks || !known.uploadId.isEmpty())
        chunks().known = known;
}

const QByteArray &TransferJob::existingSha256() const
{
    static const QByteArray none;
    return m_chunks ? m_chunks->existingSha256 : none;
}

void TransferJob::setExistingSha256(const QByteArray &sha256)
{
    if (m_chunks || !sha256.isEmpty())
        chunks().existingSha256 = sha256;
}

const QList<QByteArray> &TransferJob::receipts() const
{
    static const QList<QByteArray> none;
    return m_chunks ? m_chunks->receipts : none;
}

const QList<QByteArray> &TransferJob::sourceChunkChecksums() const
{
    static const QList<QByteArray> none;
    return m_chunks ? m_chunks->sourceChecksums : none;
}

void TransferJob::attachUpload(const QString &uploadId, qint64 chunkSize, const QList<HeldChunk> &held)
{
    ChunkBook &book = chunks();
    book.heldToVerify.clear();
    book.uploadId = uploadId;
    m_planner = ChunkPlanner(m_source.size, chunkSize);
    book.pending.clear();
    book.ready.clear();
    book.acked = QList<bool>(m_planner.chunkCount(), false);
    book.receipts = QList<QByteArray>(m_planner.chunkCount());
    m_acknowledged = 0;
    m_acknowledgedBytes = 0;
    for (const HeldChunk &chunk : held) {
        const int index = chunk.index;
        if (index < 0 || index >= m_planner.chunkCount() || book.acked.at(index))
            continue;
        book.acked[index] = true;
        book.receipts[index] = chunk.receipt;
        ++m_acknowledged;
        m_acknowledgedBytes += m_planner.chunk(index).length;
        if (!chunk.receipt.isEmpty())
            book.heldToVerify.insert(index, chunk.receipt);
    }
    for (int index = 0; index < m_planner.chunkCount(); ++index) {
        if (!book.acked.at(index))
            book.pending.append(index);
    }
}

bool TransferJob::isReadyToCreate() const
{
    // A resumed upload is asked about first; it was created with its metadata long ago.
    const bool waitsForHash = sha256BeforeCreate && known().uploadId.isEmpty() && sha256().isEmpty();
    return m_state == TransferState::Preparing && needsCreate && !requestInFlight && !waitsForHash;
}

void TransferJob::setSourceChunkChecksums(qint64 chunkSize, const QList<QByteArray> &checksums)
{
    chunks().sourceHashSize = chunkSize;
    chunks().sourceChecksums = checksums;
}

QList<int> TransferJob::checkHeldChunks()
{
    ChunkBook &book = chunks();
    Q_ASSERT(book.sourceHashSize == m_planner.chunkSize());
    QList<int> differing;
    for (auto it = book.heldToVerify.cbegin(); it != book.heldToVerify.cend(); ++it) {
        const int index = it.key();
        if (index >= book.sourceChecksums.size() || book.sourceChecksums.at(index) != it.value())
            differing.append(index);
    }
    book.heldToVerify.clear();
    std::sort(differing.begin(), differing.end());
    return differing;
}

void TransferJob::unacknowledge(int index)
{
    if (!m_chunks || index < 0 || index >= m_chunks->acked.size() || !m_chunks->acked.at(index))
        return;
    m_chunks->acked[index] = false;
    m_chunks->receipts[index].clear();
    --m_acknowledged;
    m_acknowledgedBytes -= m_planner.chunk(index).length;
    m_chunks->pending.append(index);
}

void TransferJob::resetForRetry()
{
    *this = TransferJob(m_id, m_source, m_planner.chunkSize());
}

int TransferJob::takePendingChunk()
{
    return chunks().pending.takeFirst();
}

void TransferJob::returnToPending(int index)
{
    if (m_chunks && !m_chunks->acked.value(index, true) && !m_chunks->pending.contains(index))
        m_chunks->pending.prepend(index);
}

ReadyChunk TransferJob::takeReadyChunk()
{
    return chunks().ready.takeFirst();
}

void TransferJob::acknowledge(int index, const QByteArray &receipt)
{
    if (!m_chunks || index < 0 || index >= m_chunks->acked.size() || m_chunks->acked.at(index))
        return;
    m_chunks->acked[index] = true;
    m_chunks->receipts[index] = receipt;
    ++m_acknowledged;
    m_acknowledgedBytes += m_planner.chunk(index).length;
}

} // namespace multilane
