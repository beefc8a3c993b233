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

TransferJob::WorkState &TransferJob::work()
{
    if (!m_work)
        m_work = std::make_unique<WorkState>();
    return *m_work;
}

static const QString noString;

const QString &TransferJob::uploadId() const
{
    return m_work ? m_work->uploadId : noString;
}

const QString &TransferJob::error() const
{
    return m_work ? m_work->error : noString;
}

void TransferJob::setError(const QString &error)
{
    if (m_work || !error.isEmpty())
        work().error = error;
}

TransferJob::Rare &TransferJob::rare()
{
    if (!m_rare)
        m_rare = std::make_unique<Rare>();
    return *m_rare;
}

void TransferJob::setRemotePath(const QString &path)
{
    m_remoteIsDestination = !path.isEmpty() && path == m_source.destinationPath();
    const QString other = m_remoteIsDestination ? QString() : path;
    if (m_rare || !other.isEmpty())
        rare().otherRemotePath = other;
}

QString TransferJob::remotePath() const
{
    if (m_remoteIsDestination)
        return m_source.destinationPath();
    return m_rare ? m_rare->otherRemotePath : QString();
}

const QByteArray &TransferJob::sha256() const
{
    static const QByteArray none;
    return m_work ? m_work->sha256 : none;
}

QList<int> TransferJob::endpointsUsed() const
{
    if (m_firstEndpoint < 0)
        return {};
    return m_rare ? QList<int>{m_firstEndpoint} + m_rare->laterEndpoints : QList<int>{m_firstEndpoint};
}

void TransferJob::noteEndpointUsed(int endpoint)
{
    if (m_firstEndpoint < 0)
        m_firstEndpoint = endpoint;
    else if (endpoint != m_firstEndpoint && !(m_rare && m_rare->laterEndpoints.contains(endpoint)))
        rare().laterEndpoints.append(endpoint);
}

const KnownUpload &TransferJob::known() const
{
    static const KnownUpload none;
    return m_work ? m_work->known : none;
}

void TransferJob::setKnown(const KnownUpload &known)
{
    if (m_work || !known.uploadId.isEmpty())
        work().known = known;
}

const QByteArray &TransferJob::existingSha256() const
{
    static const QByteArray none;
    return m_work ? m_work->existingSha256 : none;
}

void TransferJob::setExistingSha256(const QByteArray &sha256)
{
    if (m_work || !sha256.isEmpty())
        work().existingSha256 = sha256;
}

const QList<QByteArray> &TransferJob::receipts() const
{
    static const QList<QByteArray> none;
    return m_work ? m_work->receipts : none;
}

const QList<QByteArray> &TransferJob::sourceChunkChecksums() const
{
    static const QList<QByteArray> none;
    return m_work ? m_work->sourceChecksums : none;
}

const FinishOutcome *TransferJob::finishedOnServer() const
{
    return m_work && m_work->finishedOnServer ? &*m_work->finishedOnServer : nullptr;
}

void TransferJob::attachUpload(const QString &uploadId, qint64 chunkSize, const QList<HeldChunk> &held)
{
    WorkState &workState = work();
    workState.heldToVerify.clear();
    workState.finishedOnServer.reset();
    workState.uploadId = uploadId;
    // Hashes taken ahead at the size asked for are of use if the answer keeps that size.
    const bool sameSize = chunkSize == m_planner.chunkSize();
    for (auto it = workState.hashingAhead.begin(); it != workState.hashingAhead.end(); ++it)
        it.value() = it.value() && sameSize;
    if (!sameSize)
        workState.hashedAhead.clear();
    m_planner = ChunkPlanner(m_source.size, chunkSize);
    workState.pending.clear();
    workState.ready.clear();
    workState.acked = QList<bool>(m_planner.chunkCount(), false);
    workState.receipts = QList<QByteArray>(m_planner.chunkCount());
    m_acknowledged = 0;
    m_acknowledgedBytes = 0;
    for (const HeldChunk &chunk : held) {
        const int index = chunk.index;
        if (index < 0 || index >= m_planner.chunkCount() || workState.acked.at(index))
            continue;
        workState.acked[index] = true;
        workState.receipts[index] = chunk.receipt;
        ++m_acknowledged;
        m_acknowledgedBytes += m_planner.chunk(index).length;
        if (!chunk.receipt.isEmpty())
            workState.heldToVerify.insert(index, chunk.receipt);
    }
    for (int index = 0; index < m_planner.chunkCount(); ++index) {
        if (workState.acked.at(index) || workState.hashingAhead.value(index, false))
            continue; // a hash still on its way becomes ready when it comes
        if (const auto hashed = workState.hashedAhead.constFind(index);
            hashed != workState.hashedAhead.cend())
            workState.ready.append({index, hashed.value()});
        else
            workState.pending.append(index);
    }
    workState.hashedAhead.clear();
    workState.nextToHashAhead = m_planner.chunkCount();
}

bool TransferJob::hasChunkToHashAhead() const
{
    return !m_work || m_work->nextToHashAhead < m_planner.chunkCount();
}

int TransferJob::takeChunkToHashAhead()
{
    WorkState &workState = work();
    workState.hashingAhead.insert(workState.nextToHashAhead, true);
    return workState.nextToHashAhead++;
}

bool TransferJob::settleHashAhead(int index, const QByteArray &checksumHex)
{
    if (!m_work)
        return false;
    const auto it = m_work->hashingAhead.find(index);
    if (it == m_work->hashingAhead.end())
        return false;
    const bool useful = it.value();
    m_work->hashingAhead.erase(it);
    if (!useful || m_work->acked.value(index, false))
        return true; // of another size, or the server already holds that chunk
    if (!m_work->acked.isEmpty())
        return false; // attached meanwhile: as any other chunk's hash
    m_work->hashedAhead.insert(index, checksumHex);
    return true;
}

bool TransferJob::isReadyToCreate() const
{
    // A resumed upload is asked about first; it was created with its metadata long ago.
    const bool waitsForHash = sha256BeforeCreate && known().uploadId.isEmpty() && sha256().isEmpty();
    return m_state == TransferState::Preparing && needsCreate && !requestInFlight && !waitsForHash;
}

void TransferJob::setSourceChunkChecksums(qint64 chunkSize, const QList<QByteArray> &checksums)
{
    WorkState &workState = work();
    workState.sourceHashSize = chunkSize;
    workState.sourceChecksums = checksums;
}

QList<int> TransferJob::checkHeldChunks()
{
    WorkState &workState = work();
    Q_ASSERT(workState.sourceHashSize == m_planner.chunkSize());
    QList<int> differing;
    for (auto it = workState.heldToVerify.cbegin(); it != workState.heldToVerify.cend(); ++it) {
        const int index = it.key();
        if (index >= workState.sourceChecksums.size() || workState.sourceChecksums.at(index) != it.value())
            differing.append(index);
    }
    workState.heldToVerify.clear();
    std::sort(differing.begin(), differing.end());
    return differing;
}

void TransferJob::unacknowledge(int index)
{
    if (!m_work || index < 0 || index >= m_work->acked.size() || !m_work->acked.at(index))
        return;
    m_work->acked[index] = false;
    m_work->receipts[index].clear();
    --m_acknowledged;
    m_acknowledgedBytes -= m_planner.chunk(index).length;
    m_work->pending.append(index);
}

void TransferJob::resetForRetry()
{
    *this = TransferJob(m_id, m_source, m_planner.chunkSize());
}

int TransferJob::takePendingChunk()
{
    return work().pending.takeFirst();
}

void TransferJob::returnToPending(int index)
{
    if (m_work && !m_work->acked.value(index, true) && !m_work->pending.contains(index))
        m_work->pending.prepend(index);
}

ReadyChunk TransferJob::takeReadyChunk()
{
    return work().ready.takeFirst();
}

void TransferJob::acknowledge(int index, const QByteArray &receipt)
{
    if (!m_work || index < 0 || index >= m_work->acked.size() || m_work->acked.at(index))
        return;
    m_work->acked[index] = true;
    m_work->receipts[index] = receipt;
    ++m_acknowledged;
    m_acknowledgedBytes += m_planner.chunk(index).length;
}

} // namespace multilane
