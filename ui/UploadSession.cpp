#include "UploadSession.h"

#include "ResumeJournal.h"

#include <QStringList>

namespace multilane {

UploadSession::UploadSession(const QList<Endpoint> &endpoints, const TransferOptions &options,
                             ResumeJournal *journal, QObject *parent)
    : QObject(parent)
    , m_endpoints(endpoints)
    , m_options(options)
    , m_journal(journal)
    , m_pool(std::make_unique<EndpointPool>(endpoints))
    , m_scheduler(std::make_unique<TransferScheduler>(*m_pool, options))
{
    attachJournal();
}

UploadSession::~UploadSession()
{
    // Whatever is still moving stays in the journal; make sure it is on disk.
    if (m_journal)
        m_journal->flush();
}

QString UploadSession::endpointSummary() const
{
    // The first endpoint and how many more: the column stays narrow; the tooltip lists them all.
    if (m_endpoints.isEmpty())
        return {};
    const QString first = m_endpoints.first().url.authority();
    return m_endpoints.size() == 1 ? first : tr("%1 +%2").arg(first).arg(m_endpoints.size() - 1);
}

QString UploadSession::endpointList() const
{
    QStringList names;
    for (const Endpoint &endpoint : m_endpoints)
        names.append(endpoint.url.authority());
    return names.join(QStringLiteral(", "));
}

bool UploadSession::accepts(const QList<Endpoint> &endpoints, const TransferOptions &options) const
{
    if (m_scheduler->isFinished() || endpoints.size() != m_endpoints.size())
        return false; // a finished scheduler's progress tick does not restart (see the report)
    for (qsizetype i = 0; i < endpoints.size(); ++i) {
        const Endpoint &a = endpoints.at(i);
        const Endpoint &b = m_endpoints.at(i);
        if (a.url != b.url || a.token != b.token || a.weight != b.weight ||
            a.maxConnections != b.maxConnections)
            return false;
    }
    return options.connections == m_options.connections && options.chunkSize == m_options.chunkSize &&
           options.onConflict == m_options.onConflict && options.maxAttempts == m_options.maxAttempts &&
           options.retryBaseDelayMs == m_options.retryBaseDelayMs;
}

int UploadSession::addFiles(const QList<SourceFile> &files, const QString &batchId, bool held)
{
    const int first = m_scheduler->jobCount();
    for (qsizetype i = 0; i < files.size(); ++i) {
        const int id = first + int(i);
        m_journalKeys.insert(id, ResumeJournal::keyFor(files.at(i)));
        if (!batchId.isEmpty())
            m_batchIds.insert(id, batchId);
    }
    m_scheduler->addFiles(files);
    if (held) {
        for (int id = first; id < m_scheduler->jobCount(); ++id)
            m_scheduler->setJobPaused(id, true);
    }
    if (first == 0)
        m_scheduler->start();
    return first;
}

void UploadSession::retry(int job)
{
    if (m_journal && m_batchIds.contains(job))
        m_journal->addFile(m_batchIds.value(job), m_scheduler->job(job).source());
    m_scheduler->retryJob(job);
}

void UploadSession::forget(int job)
{
    if (!isTerminal(m_scheduler->job(job).state()))
        m_scheduler->cancelJob(job);
    if (m_journal && m_batchIds.contains(job))
        m_journal->endFile(m_journalKeys.value(job));
}

void UploadSession::attachJournal()
{
    // The same wiring as `multilane upload` (app/cli/UploadCommand.cpp), so either front end
    // can resume what the other left unfinished.
    if (!m_journal)
        return;
    connect(m_scheduler.get(), &TransferScheduler::uploadAttached, this, [this](int id) {
        if (!m_batchIds.contains(id))
            return;
        const TransferJob &job = m_scheduler->job(id);
        m_journal->setUpload(m_journalKeys.value(id), job.uploadId(), job.planner().chunkSize());
    });
    connect(m_scheduler.get(), &TransferScheduler::chunkAcknowledged, this, [this](int id, int chunk) {
        if (m_batchIds.contains(id))
            m_journal->acknowledgeChunk(m_journalKeys.value(id), chunk,
                                        m_scheduler->job(id).receipts().value(chunk));
    });
    connect(m_scheduler.get(), &TransferScheduler::fileFinished, this, [this](int id) {
        if (m_batchIds.contains(id) && !m_scheduler->job(id).isResumable())
            m_journal->endFile(m_journalKeys.value(id));
    });
}

} // namespace multilane
