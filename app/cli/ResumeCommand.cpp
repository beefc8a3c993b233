#include "ResumeCommand.h"

#include "ByteSize.h"
#include "ResumeJournal.h"
#include "UploadCommand.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

namespace multilane {

ResumeCommand::ResumeCommand(const UploadRequest &options, ResumeJournal &journal, QFile &out, QFile &err,
                             bool errIsTerminal, QObject *parent)
    : QObject(parent)
    , m_options(options)
    , m_journal(journal)
    , m_out(out)
    , m_err(err)
    , m_errIsTerminal(errIsTerminal)
{}

ResumeCommand::~ResumeCommand() = default;

void ResumeCommand::start()
{
    for (const QString &warning : m_journal.state().warnings)
        m_err.write(QStringLiteral("warning: %1\n").arg(warning).toUtf8());
    m_batches = m_journal.state().batches;
    if (m_batches.isEmpty())
        m_err.write("nothing to resume: every upload has finished\n");
    runNextBatch();
}

void ResumeCommand::interrupt()
{
    m_batches.clear();
    if (m_current)
        m_current->interrupt();
}

UploadRequest ResumeCommand::requestFor(const JournalBatch &batch) const
{
    UploadRequest request = m_options;
    request.endpoints = batch.endpoints;
    for (Endpoint &endpoint : request.endpoints) {
        if (endpoint.token.isEmpty())
            endpoint.token = m_options.tokenOverride;
    }
    // The file was readable when the command line was parsed; an error here is a race at worst,
    // and leaves the endpoint on the system CAs, where the TLS error says what to do.
    EndpointParser::applyTlsDefaults(request.endpoints, m_options.caFile, m_options.pinSha256);
    request.destination = batch.destination;
    // A --chunk-size given to the upload holds for its resume; an automatic one is measured again
    // (it used to be measured again either way: the probe overrode a chunk size the user fixed).
    request.autoChunkSize = batch.chunkSize <= 0;
    request.transfer.chunkSize = batch.chunkSize > 0 ? batch.chunkSize : request.transfer.chunkSize;
    request.transfer.onConflict = batch.onConflict;
    request.connectionsFixed = batch.connections > 0;
    request.transfer.connections =
        batch.connections > 0 ? batch.connections : 4 * int(batch.endpoints.size());
    return request;
}

void ResumeCommand::runNextBatch()
{
    m_current.reset();
    if (m_batches.isEmpty()) {
        QTimer::singleShot(0, this, [this] { Q_EMIT finished(m_worstExit); });
        return;
    }
    const JournalBatch batch = m_batches.takeFirst();
    QList<SourceFile> files;
    for (const JournalFile &file : m_journal.state().files) {
        if (file.batchId != batch.id)
            continue;
        const QFileInfo info(file.source.localPath);
        SourceFile source = file.source;
        if (!info.isFile()) {
            m_err.write(
                QStringLiteral("error: %1 is gone; its upload is dropped\n").arg(source.localPath).toUtf8());
            m_journal.endFile(file.key);
            m_worstExit = std::max(m_worstExit, 1);
            continue;
        }
        if (info.size() != source.size || info.lastModified().toMSecsSinceEpoch() != source.mtimeMs) {
            if (!m_options.restartChangedFiles) {
                m_err.write(QStringLiteral("error: %1 changed since its upload started; not resumed "
                                           "(--on-change restart sends it again from zero)\n")
                                .arg(source.localPath)
                                .toUtf8());
                m_journal.endFile(file.key);
                m_worstExit = std::max(m_worstExit, 1);
                continue;
            }
            m_err.write(QStringLiteral("%1 changed since its upload started; sending it again from zero\n")
                            .arg(source.localPath)
                            .toUtf8());
            source.size = info.size();
            source.mtimeMs = info.lastModified().toMSecsSinceEpoch();
            m_journal.addFile(batch.id, source); // a new key for the receiver: a fresh upload
        }
        files.append(source);
    }
    if (files.isEmpty()) {
        runNextBatch();
        return;
    }
    m_current = std::make_unique<UploadCommand>(requestFor(batch), &m_journal, m_out, m_err, m_errIsTerminal);
    connect(m_current.get(), &UploadCommand::finished, this, [this](int exitCode) {
        m_worstExit = std::max(m_worstExit, exitCode);
        // Delete the finished command outside its own signal.
        QTimer::singleShot(0, this, &ResumeCommand::runNextBatch);
    });
    m_current->startResumed(files, batch.id);
}

int ResumeCommand::printStatus(const ResumeJournal &journal, bool json, QFile &out, QFile &err)
{
    const ResumeJournal::Snapshot snapshot = journal.load();
    for (const QString &warning : snapshot.warnings)
        err.write(QStringLiteral("warning: %1\n").arg(warning).toUtf8());
    QJsonArray files;
    for (const JournalFile &file : snapshot.files) {
        const qint64 chunk = file.chunkSize;
        qint64 held = 0;
        for (int index : file.acknowledgedChunks)
            held += std::max<qint64>(0, std::min(chunk, file.source.size - qint64(index) * chunk));
        if (json) {
            files.append(QJsonObject{{QStringLiteral("path"), file.source.localPath},
                                     {QStringLiteral("destination"), file.source.destinationPath},
                                     {QStringLiteral("size"), file.source.size},
                                     {QStringLiteral("bytesAcknowledged"), held},
                                     {QStringLiteral("uploadId"), file.uploadId},
                                     {QStringLiteral("batch"), file.batchId}});
            continue;
        }
        const int percent = file.source.size > 0 ? int(100 * held / file.source.size) : 0;
        out.write(QStringLiteral("%1%  %2 of %3  %4 -> %5\n")
                      .arg(percent, 3)
                      .arg(ByteSize::format(held), ByteSize::format(file.source.size), file.source.localPath,
                           file.source.destinationPath)
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
