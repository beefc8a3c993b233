#include "JobQueue.h"

#include <algorithm>

namespace multilane {

JobQueue::JobQueue(bool filesInOrder)
    : m_inOrder(filesInOrder)
{}

int JobQueue::add(const SourceFile &file, qint64 chunkSize)
{
    const int id = int(m_jobs.size());
    m_order.push_back(id);
    m_jobs.emplace_back(id, file, chunkSize);
    ++m_inState[std::size_t(TransferState::Queued)];
    m_bytesTotal += file.size;
    m_batchOf.push_back(m_batch);
    return id;
}

void JobQueue::setState(TransferJob &job, TransferState state)
{
    --m_inState[std::size_t(job.state())];
    job.setState(state);
    ++m_inState[std::size_t(state)];
}

void JobQueue::resetForRetry(TransferJob &job)
{
    --m_inState[std::size_t(job.state())];
    job.resetForRetry();
    ++m_inState[std::size_t(job.state())];
}

void JobQueue::reserve(qsizetype more)
{
    const std::size_t needed = m_jobs.size() + std::size_t(std::max<qsizetype>(more, 0));
    if (needed <= m_jobs.capacity())
        return;
    // Batches added one after another still grow geometrically.
    const std::size_t room = std::max(needed, m_jobs.capacity() + m_jobs.capacity() / 2);
    m_jobs.reserve(room);
    m_batchOf.reserve(room);
    m_order.reserve(room);
}

void JobQueue::orderNewFiles()
{
    ++m_batch;
    if (!m_inOrder) {
        std::stable_sort(m_order.begin() + std::ptrdiff_t(m_nextToStart), m_order.end(),
                         [this](int a, int b) { return job(a).source().size > job(b).source().size; });
    }
}

QList<int> JobQueue::waiting() const
{
    QList<int> ids;
    for (std::size_t i = m_nextToStart; i < m_order.size(); ++i)
        ids.append(m_order[i]);
    return ids;
}

void JobQueue::openUpTo(int limit, const std::function<void(TransferJob &)> &opened)
{
    while (m_open.size() < limit && (!m_retry.isEmpty() || m_nextToStart < m_order.size())) {
        TransferJob &next = job(!m_retry.isEmpty() ? m_retry.takeFirst() : m_order[m_nextToStart++]);
        if (next.state() != TransferState::Queued)
            continue; // cancelled before it started
        m_open.append(next.id());
        opened(next);
    }
}

TransferJob *JobQueue::next(Wants wants, Pick pick)
{
    // Round-robin over the open files: each call starts after the file served last.
    const bool earliest = pick == Pick::Earliest || m_inOrder;
    const int count = int(m_open.size());
    for (int step = 0; step < count; ++step) {
        const int position = earliest ? step : (m_turn + step) % count;
        TransferJob &candidate = job(m_open.at(position));
        if (!candidate.paused && wants(candidate)) {
            m_turn = (position + 1) % count;
            return &candidate;
        }
    }
    return nullptr;
}

TransferJob *JobQueue::nextFromLaterBatch(Wants wants, Wants older)
{
    int newestOlder = -1;
    for (int id : std::as_const(m_open)) {
        if (!job(id).paused && older(job(id)))
            newestOlder = std::max(newestOlder, m_batchOf[std::size_t(id)]);
    }
    if (newestOlder < 0)
        return nullptr;
    for (int id : std::as_const(m_open)) {
        TransferJob &candidate = job(id);
        if (m_batchOf[std::size_t(id)] > newestOlder && !candidate.paused && wants(candidate))
            return &candidate;
    }
    return nullptr;
}

void JobQueue::close(int id)
{
    m_open.removeOne(id);
    if (m_turn >= m_open.size())
        m_turn = 0;
}

QList<int> JobQueue::openEverything()
{
    while (m_nextToStart < m_order.size())
        m_open.append(m_order[m_nextToStart++]);
    m_open += m_retry;
    m_retry.clear();
    return m_open;
}

} // namespace multilane
