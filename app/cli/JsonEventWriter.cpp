#include "JsonEventWriter.h"

#include "LinkEstimate.h"
#include "ResumeJournalTypes.h"
#include "TransferScheduler.h"

#include <QFile>
#include <QJsonDocument>

namespace multilane {

JsonEventWriter::JsonEventWriter(QFile &out, QObject *parent)
    : QObject(parent)
    , m_out(out)
{}

void JsonEventWriter::attach(const TransferScheduler &scheduler)
{
    connect(&scheduler, &TransferScheduler::fileStarted, this, [this, &scheduler](int id) {
        const TransferJob &job = scheduler.job(id);
        write({{QStringLiteral("event"), QStringLiteral("fileStarted")},
               {QStringLiteral("path"), job.source().localPath()},
               {QStringLiteral("destination"), job.source().destinationPath()},
               {QStringLiteral("size"), job.source().size}});
    });
    connect(&scheduler, &TransferScheduler::fileFinished, this, [this, &scheduler](int id) {
        const TransferJob &job = scheduler.job(id);
        if (job.state() == TransferState::Failed) {
            writeError(job.error(), job.source().localPath());
            return;
        }
        write({{QStringLiteral("event"), QStringLiteral("fileDone")},
               {QStringLiteral("path"), job.source().localPath()},
               {QStringLiteral("destination"), job.remotePath()},
               {QStringLiteral("size"), job.source().size},
               {QStringLiteral("sha256"), QString::fromLatin1(job.sha256())},
               {QStringLiteral("status"), transferStateName(job.state())}});
    });
    connect(&scheduler, &TransferScheduler::warning, this,
            [this, &scheduler](int id, const QString &message) {
                write({{QStringLiteral("event"), QStringLiteral("warning")},
                       {QStringLiteral("path"), scheduler.job(id).source().localPath()},
                       {QStringLiteral("message"), message}});
            });
    connect(&scheduler, &TransferScheduler::progressChanged, this, [this](const TransferProgress &p) {
        // Once a second is plenty for a script; the summary carries the final numbers.
        if (m_lastProgressMs >= 0 && p.elapsedMs - m_lastProgressMs < 1000)
            return;
        m_lastProgressMs = p.elapsedMs;
        write({{QStringLiteral("event"), QStringLiteral("progress")},
               {QStringLiteral("bytesDone"), p.bytesDone},
               {QStringLiteral("bytesTotal"), p.bytesTotal},
               {QStringLiteral("filesDone"), p.filesDone + p.filesSkipped},
               {QStringLiteral("filesTotal"), p.filesTotal},
               {QStringLiteral("bytesPerSecond"), qint64(p.bytesPerSecond)},
               {QStringLiteral("connections"), connectionsOf(p)}});
    });
}

QJsonObject JsonEventWriter::connectionsOf(const TransferProgress &p)
{
    return {{QStringLiteral("level"), p.connections}, {QStringLiteral("reason"), p.connectionsReason}};
}

void JsonEventWriter::writeError(const QString &message, const QString &path)
{
    QJsonObject event{{QStringLiteral("event"), QStringLiteral("error")},
                      {QStringLiteral("message"), message}};
    if (!path.isEmpty())
        event.insert(QStringLiteral("path"), path);
    write(event);
}

void JsonEventWriter::writeState(const QString &state)
{
    write({{QStringLiteral("event"), QStringLiteral("state")}, {QStringLiteral("state"), state}});
}

void JsonEventWriter::writeLink(const LinkEstimate &estimate)
{
    write({{QStringLiteral("event"), QStringLiteral("link")},
           {QStringLiteral("bytesPerSecond"), qint64(estimate.bytesPerSecond)},
           {QStringLiteral("rttMs"), estimate.rttMs},
           {QStringLiteral("chunkSize"), estimate.chunkSize}});
}

void JsonEventWriter::writeRememberedLink(const LinkMemory &memory, qint64 ageSeconds)
{
    write({{QStringLiteral("event"), QStringLiteral("linkRemembered")},
           {QStringLiteral("connections"), memory.connections},
           {QStringLiteral("bytesPerSecond"), qint64(memory.bytesPerSecond)},
           {QStringLiteral("chunkSize"), memory.chunkSize},
           {QStringLiteral("ageSeconds"), ageSeconds}});
}

void JsonEventWriter::writeSummary(const TransferProgress &p, const QJsonArray &endpoints,
                                   const QJsonArray &notSent)
{
    const double seconds = double(p.elapsedMs) / 1000.0;
    write({{QStringLiteral("event"), QStringLiteral("summary")},
           {QStringLiteral("filesTotal"), p.filesTotal},
           {QStringLiteral("filesDone"), p.filesDone},
           {QStringLiteral("filesSkipped"), p.filesSkipped},
           {QStringLiteral("filesFailed"), p.filesFailed},
           {QStringLiteral("bytesTotal"), p.bytesTotal},
           {QStringLiteral("bytesSent"), p.bytesSent},
           {QStringLiteral("seconds"), seconds},
           {QStringLiteral("endpoints"), endpoints},
           {QStringLiteral("notSent"), notSent},
           {QStringLiteral("connections"), connectionsOf(p)},
           {QStringLiteral("bytesPerSecond"), seconds > 0 ? qint64(double(p.bytesSent) / seconds) : 0}});
}

void JsonEventWriter::write(const QJsonObject &event)
{
    m_out.write(QJsonDocument(event).toJson(QJsonDocument::Compact) + '\n');
    m_out.flush();
}

} // namespace multilane
