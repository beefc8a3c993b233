#include "UploadSession.h"

#include "TransferScheduler.h"

#include <QStringList>

namespace multilane {

UploadSession::UploadSession(const UploadPlan &plan, ResumeJournal *journal, ReachabilityHint *reachability,
                             QObject *parent)
    : QObject(parent)
    , m_run(std::make_unique<UploadRun>(plan, journal, reachability))
    , m_requested(plan)
{
    connect(&m_run->scheduler(), &TransferScheduler::endpointDown, this,
            [this](int endpoint, const QString &why) { m_whyDown.insert(endpoint, why); });
    connect(m_run.get(), &UploadRun::endpointProblem, this,
            [this](int endpoint, const QString &why) { m_whyDown.insert(endpoint, why); });
}

UploadSession::~UploadSession() = default;

QString UploadSession::nameOf(int endpoint) const
{
    return endpoints().value(endpoint).url.authority();
}

QString UploadSession::endpointSummary(const QList<int> &used) const
{
    // The first endpoint and how many more: the column stays narrow; the tooltip lists them all.
    if (used.isEmpty())
        return {};
    const QString first = nameOf(used.first());
    return used.size() == 1 ? first : tr("%1 +%2").arg(first).arg(used.size() - 1);
}

QString UploadSession::endpointList(const QList<int> &used) const
{
    if (used.isEmpty())
        return tr("Nothing sent yet");
    QStringList names;
    for (int endpoint : used)
        names.append(nameOf(endpoint));
    return tr("Sent to %1").arg(names.join(QStringLiteral(", ")));
}

QStringList UploadSession::downEndpoints() const
{
    QStringList lines;
    const QList<EndpointStats> &stats = scheduler().endpointStats();
    for (int i = 0; i < pool().endpointCount(); ++i) {
        if (pool().isUp(i))
            continue;
        // The engine's messages name the endpoint; the line names it once, in front.
        const QString url = endpoints().at(i).displayName();
        const auto withoutName = [&url](QString message) {
            for (const QString &prefix : QStringList{url + QStringLiteral(": "), url + QStringLiteral(" ")}) {
                if (message.startsWith(prefix))
                    message.remove(0, prefix.size());
            }
            return message;
        };
        // What took it out ("stopped answering"), and the last request's failure, which says why.
        QString why = withoutName(m_whyDown.value(i));
        const QString last = withoutName(i < stats.size() ? stats.at(i).lastError : QString());
        if (!last.isEmpty() && !why.contains(last))
            why = why.isEmpty() ? last : tr("%1; last error: %2").arg(why, last);
        lines.append(why.isEmpty() ? nameOf(i) : tr("%1 — %2").arg(nameOf(i), why));
    }
    return lines;
}

QList<quint16> UploadSession::ports() const
{
    QList<quint16> ports;
    for (const Endpoint &endpoint : endpoints()) {
        const int port = endpoint.url.port(endpoint.url.scheme() == QLatin1String("https") ? 443 : 80);
        if (!ports.contains(quint16(port)))
            ports.append(quint16(port));
    }
    return ports;
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
        return false; // a finished run has let its connections go; a new one checks them again
    for (qsizetype i = 0; i < plan.endpoints.size(); ++i) {
        const Endpoint &a = plan.endpoints.at(i);
        const Endpoint &b = mine.endpoints.at(i);
        if (a.url != b.url || a.token != b.token || a.weight != b.weight ||
            a.maxConnections != b.maxConnections)
            return false;
    }
    const TransferOptions &x = plan.transfer;
    const TransferOptions &y = mine.transfer;
    // An automatic chunk size is the run's to choose per file: a link measured since the run
    // started is no reason for a second run (with its own connections and tuner) beside it.
    const bool sameChunks = plan.autoChunkSize ? mine.autoChunkSize : x.chunkSize == y.chunkSize;
    return plan.connectionsFixed == mine.connectionsFixed && plan.autoChunkSize == mine.autoChunkSize &&
           x.connections == y.connections && sameChunks && x.onConflict == y.onConflict &&
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
