#include "TransferScheduler.h"

#include <climits>

// TransferScheduler's third part: what the user and the network do to a running transfer
// (pause, resume, one file paused, cancelled or retried, the network gone and back). Work
// picking and sending is in TransferScheduler.cpp, reading answers in TransferSchedulerAnswers.cpp.

namespace multilane {

void TransferScheduler::pause()
{
    if (m_paused)
        return;
    m_paused = true;
    cancelRequests(-1);
    m_services.transport->closeIdleConnections();
    emitProgress();
}

void TransferScheduler::resume()
{
    if (!m_paused)
        return;
    m_paused = false;
    emitProgress();
    pump();
}

void TransferScheduler::holdWhileMeasuring(bool hold)
{
    if (hold == m_heldForMeasurement)
        return;
    m_heldForMeasurement = hold;
    if (!hold)
        pump();
}

void TransferScheduler::setJobPaused(int id, bool paused)
{
    TransferJob &job = m_jobs.job(id);
    if (job.paused == paused || isTerminal(job.state()))
        return;
    job.paused = paused;
    if (paused)
        cancelRequests(id);
    pump();
}

void TransferScheduler::cancelJob(int id)
{
    TransferJob &job = m_jobs.job(id);
    if (isTerminal(job.state()))
        return;
    // Finished first, so the work its cancelled requests hand back is not sent again.
    m_jobs.dropFromRetry(id);
    finishJob(job, TransferState::Cancelled, QStringLiteral("cancelled"));
    cancelRequests(id);
    abortOnServer(job);
    pump();
}

void TransferScheduler::retryJob(int id)
{
    TransferJob &job = m_jobs.job(id);
    if (job.state() != TransferState::Failed && job.state() != TransferState::Cancelled)
        return;
    m_bytesAcknowledged -= job.acknowledgedBytes();
    m_jobs.resetForRetry(job);
    m_dirtyJobs.insert(id);
    m_jobs.queueForRetry(id);
    if (m_finished && m_started) {
        m_finished = false;
        m_progressTimer.start();
    }
    pump();
}

void TransferScheduler::cancelRequests(int jobId, int endpoint)
{
    QList<WireCall *> calls;
    for (auto it = m_inFlight.begin(); it != m_inFlight.end(); ++it) {
        if ((jobId < 0 || it->job == jobId) && (endpoint < 0 || it->lease.endpoint == endpoint)) {
            it->cancelled = true;
            calls.append(it.key());
        }
    }
    for (WireCall *call : std::as_const(calls))
        call->abort(); // finished() follows and puts the work back
}

void TransferScheduler::onOnlineChanged(bool online)
{
    if (online) {
        m_offlineTimer.stop();
    } else if (m_options.maxOfflineMs > 0) {
        m_offlineTimer.start(int(std::min<qint64>(m_options.maxOfflineMs, INT_MAX)));
    }
    emitProgress();
    Q_EMIT onlineChanged(online);
    pump();
}

void TransferScheduler::failEverything(const QString &why)
{
    cancelRequests(-1);
    for (int id : m_jobs.openEverything()) {
        TransferJob &job = m_jobs.job(id);
        if (!isTerminal(job.state()))
            finishJob(job, TransferState::Failed, why, true);
        else
            m_jobs.close(id); // cancelled before it started
    }
    pump();
}

} // namespace multilane
