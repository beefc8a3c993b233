#include "ResumeCommand.h"

#include "ByteSize.h"
#include "ResumeJournal.h"
#include "UploadCommand.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

namespace multilane {

ResumeCommand::ResumeCommand(const UploadRequest &options, ResumeJournal &journal, QFile &out, QFile &err,
                             bool errIsTerminal, ReachabilityHint *reachability, QObject *parent)
    : QObject(parent)
    , m_options(options)
    , m_journal(journal)
    , m_out(out)
    , m_err(err)
    , m_errIsTerminal(errIsTerminal)
    , m_reachability(reachability)
{}

ResumeCommand::~ResumeCommand() = default;

void ResumeCommand::start()
{
    for (const QString &warning : m_journal.state().warnings)
        m_err.write(QStringLiteral("warning: %1\n").arg(warning).toUtf8());
    ResumePlan::Options options;
    options.transfer = m_options.transfer;
    options.tokenOverride = m_options.tokenOverride;
    options.caFile = m_options.caFile;
    options.pinSha256 = m_options.pinSha256;
    options.restartChangedFiles = m_options.restartChangedFiles;
    const ResumePlan plan(m_journal, options);
    for (const QString &problem : plan.problems())
        m_err.write(QStringLiteral("error: %1\n").arg(problem).toUtf8());
    for (const QString &notice : plan.notices())
        m_err.write(QStringLiteral("%1\n").arg(notice).toUtf8());
    if (!plan.problems().isEmpty())
        m_worstExit = 1;
    m_batches = plan.batches();
    if (m_batches.isEmpty() && plan.problems().isEmpty())
        m_err.write("nothing to resume: every upload has finished\n");
    runNextBatch();
}

void ResumeCommand::interrupt()
{
    m_batches.clear();
    if (m_current)
        m_current->interrupt();
}

void ResumeCommand::runNextBatch()
{
    m_current.reset();
    if (m_batches.isEmpty()) {
        QTimer::singleShot(0, this, [this] { Q_EMIT finished(m_worstExit); });
        return;
    }
    const ResumePlan::Batch batch = m_batches.takeFirst();
    m_current =
        std::make_unique<UploadCommand>(m_options, &m_journal, m_out, m_err, m_errIsTerminal, m_reachability);
    connect(m_current.get(), &UploadCommand::finished, this, [this](int exitCode) {
        m_worstExit = std::max(m_worstExit, exitCode);
        // Delete the finished command outside its own signal.
        QTimer::singleShot(0, this, &ResumeCommand::runNextBatch);
    });
    m_current->startResumed(batch);
}

int ResumeCommand::printStatus(const ResumeJournal &journal, bool json, QFile &out, QFile &err)
{
    const ResumeJournal::Snapshot snapshot = journal.load();
    for (const QString &warning : snapshot.warnings)
        err.write(QStringLiteral("warning: %1\n").arg(warning).toUtf8());
    QHash<QString, QString> s3Targets; // batch -> s3://bucket/prefix/, for S3 batches
    for (const JournalBatch &batch : snapshot.batches) {
        if (batch.s3.isSet())
            s3Targets.insert(batch.id, batch.s3.url.endsWith(QLatin1Char('/'))
                                           ? batch.s3.url
                                           : batch.s3.url + QLatin1Char('/'));
    }
    QJsonArray files;
    for (const JournalFile &file : snapshot.files) {
        const QString destination = s3Targets.value(file.batchId) + file.source.destinationPath();
        const qint64 chunk = file.chunkSize;
        qint64 held = 0;
        for (int index : file.acknowledgedChunks)
            held += std::max<qint64>(0, std::min(chunk, file.source.size - qint64(index) * chunk));
        if (json) {
            files.append(QJsonObject{{QStringLiteral("path"), file.source.localPath()},
                                     {QStringLiteral("destination"), destination},
                                     {QStringLiteral("size"), file.source.size},
                                     {QStringLiteral("bytesAcknowledged"), held},
                                     {QStringLiteral("uploadId"), file.uploadId},
                                     {QStringLiteral("batch"), file.batchId}});
            continue;
        }
        const int percent = file.source.size > 0 ? int(100 * held / file.source.size) : 0;
        out.write(QStringLiteral("%1%  %2 of %3  %4 -> %5\n")
                      .arg(percent, 3)
                      .arg(ByteSize::format(held), ByteSize::format(file.source.size),
                           file.source.localPath(), destination)
                      .toUtf8());
    }
    if (json)
        out.write(
            QJsonDocument(QJsonObject{{QStringLiteral("unfinished"), files}}).toJson(QJsonDocument::Compact) +
            '\n');
    else if (snapshot.files.isEmpty())
        out.write("no unfinished uploads\n");
    else
        out.write(QStringLiteral("%1 unfinished; 'multilane resume' continues them\n")
                      .arg(snapshot.files.size())
                      .toUtf8());
    return 0;
}

} // namespace multilane
