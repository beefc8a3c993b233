#include "UploadSession.h"

#include "TransferScheduler.h"

#include <QStringList>

namespace multilane {

UploadSession::UploadSession(const UploadPlan &plan, ResumeJournal *journal, ReachabilityHint *reachability,
                             QObject *parent)
    : QObject(parent)
    , m_run(std::make_unique<UploadRun>(plan, journal, reachability))
    , m_requested(plan)
{}

UploadSession::~UploadSession() = default;

QString UploadSession::endpointSummary() const
{
    // The first endpoint and how many more: the column stays narrow; the tooltip lists them all.
    const QList<Endpoint> &all = endpoints();
    if (all.isEmpty())
        return {};
    const QString first = all.first().url.authority();
    return all.size() == 1 ? first : tr("%1 +%2").arg(first).arg(all.size() - 1);
}

QString UploadSession::endpointList() const
{
    QStringList names;
    for (const Endpoint &endpoint : endpoints())
        names.append(endpoint.url.authority());
    return names.join(QStringLiteral(", "));
}

bool UploadSession::accepts(const UploadPlan &plan) const
{
    const UploadPlan &mine = m_requested;
    const auto sameKeys = [](const std::optional<S3Credentials> &a, const std::optional<S3Credentials> &b) {
        return a.has_value() == b.has_value() &&
               (!a || (a->accessKeyId == b->accessKeyId && a->secretAccessKey == b->secretAccessKey));
    };
    if (!(plan.s3 == mine.s3) || !sameKeys(plan.s3Credentials, mine.s3Credentials))
        return false;
    if (scheduler().isFinished() || plan.endpoints.size() != mine.endpoints.size())
        return false; // a finished scheduler's progress tick does not restart (see the report)
    for (qsizetype i = 0; i < plan.endpoints.size(); ++i) {
        const Endpoint &a = plan.endpoints.at(i);
        const Endpoint &b = mine.endpoints.at(i);
        if (a.url != b.url || a.token != b.token || a.weight != b.weight ||
            a.maxConnections != b.maxConnections)
            return false;
    }
    const TransferOptions &x = plan.transfer;
    const TransferOptions &y = mine.transfer;
    return plan.connectionsFixed == mine.connectionsFixed && plan.autoChunkSize == mine.autoChunkSize &&
           x.connections == y.connections && x.chunkSize == y.chunkSize && x.onConflict == y.onConflict &&
           x.maxAttempts == y.maxAttempts && x.retryBaseDelayMs == y.retryBaseDelayMs &&
           x.limitBytesPerSecond == y.limitBytesPerSecond;
}

int UploadSession::addFiles(const QList<SourceFile> &files, bool held)
{
    const int first = m_run->addNewFiles(files, held);
    m_run->start(); // the first files start it; later ones join it
    return first;
}

int UploadSession::addResumed(const ResumePlan::Batch &batch)
{
    const int first = m_run->addResumedFiles(batch.id, batch.files);
    m_run->start();
    return first;
}

} // namespace multilane
