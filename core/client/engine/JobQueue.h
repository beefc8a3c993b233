#pragma once

#include "TransferJob.h"

#include <QList>
#include <array>
#include <functional>
#include <vector>

namespace multilane {

// The files of one transfer: every job by id, the order in which they start, which are open now,
// and whose turn it is. Biggest files start first unless the user asked for the order given:
// the last requests of an upload are then short ones, and connections run out of work together
// instead of the last big file's chunks queueing behind a few of them
// (longest-processing-time-first scheduling).
class JobQueue {
public:
    enum class Pick { RoundRobin, Earliest }; // Earliest: the first open file in start order
    using Wants = bool (*)(const TransferJob &);

    explicit JobQueue(bool filesInOrder);

    int add(const SourceFile &file, qint64 chunkSize); // returns the job's id
    // Room for `more` jobs: a batch of a million files gets exactly its size, not the next power
    // of two with the old copy alongside while it grows.
    void reserve(qsizetype more);
    // Puts the files not started yet (new ones among them) in start order; the files added
    // before it are one batch, those added after it the next.
    void orderNewFiles();

    int count() const { return int(m_jobs.size()); }
    TransferJob &job(int id) { return m_jobs[std::size_t(id)]; }
    const TransferJob &job(int id) const { return m_jobs[std::size_t(id)]; }
    const std::vector<TransferJob> &jobs() const { return m_jobs; }
    const QList<int> &open() const { return m_open; }
    // Every change of a job's state goes through here, so that the totals a progress update
    // reports need no pass over the jobs (a million files, ten updates a second).
    void setState(TransferJob &job, TransferState state);
    void resetForRetry(TransferJob &job);
    int countIn(TransferState state) const { return m_inState[std::size_t(state)]; }
    qint64 bytesTotal() const { return m_bytesTotal; }
    // Jobs not started yet, in start order.
    QList<int> waiting() const;
    bool hasWaiting() const { return !m_retry.isEmpty() || m_nextToStart < m_order.size(); }

    // Opens files (retried ones first) until `limit` are open; `opened` runs for each.
    void openUpTo(int limit, const std::function<void(TransferJob &)> &opened);
    // The next open file that `wants` something, taking turns (or the earliest, with Earliest or
    // in-order files); nullptr when none.
    TransferJob *next(Wants wants, Pick pick = Pick::RoundRobin);
    // The earliest open file that `wants` something and came in a later batch than every open
    // file that `older` wants (the window's next drop, while an earlier one's chunks go);
    // nullptr when none.
    TransferJob *nextFromLaterBatch(Wants wants, Wants older);
    // Closes a finished file; a file never opened (cancelled while queued) may be closed too.
    void close(int id);
    void queueForRetry(int id) { m_retry.append(id); }
    void dropFromRetry(int id) { m_retry.removeAll(id); }
    // Opens every file left, without limit (to fail them all); returns them.
    QList<int> openEverything();
    bool isDrained() const
    {
        return m_open.isEmpty() && m_retry.isEmpty() && m_nextToStart >= m_order.size();
    }

private:
    bool m_inOrder;
    std::vector<TransferJob> m_jobs;
    std::array<int, std::size_t(TransferState::Cancelled) + 1> m_inState{}; // jobs by state
    qint64 m_bytesTotal = 0;
    std::vector<int> m_batchOf; // by job id
    int m_batch = 0;
    std::vector<int> m_order;      // job ids in the order they start
    std::size_t m_nextToStart = 0; // m_order's first job not started yet
    QList<int> m_open;
    QList<int> m_retry;
    int m_turn = 0;
};

} // namespace multilane
