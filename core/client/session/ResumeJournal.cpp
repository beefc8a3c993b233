#include "ResumeJournal.h"

#include "DurableLog.h"
#include "JournalRecords.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QRandomGenerator>

namespace multilane {

static const QLatin1String LogName("journal.log");
static const QLatin1String LockName("journal.lock");

ResumeJournal::ResumeJournal(const QString &directory)
    : m_directory(QDir::cleanPath(QDir(directory).absolutePath()))
    , m_model(std::make_unique<JournalModel>())
    , m_log(std::make_unique<DurableLog>(m_directory, LogName, LockName))
{}

ResumeJournal::~ResumeJournal()
{
    writeHeldRecords();
}

QString ResumeJournal::defaultDirectory()
{
    // QStandardPaths::GenericStateLocation is Qt 6.7+. The XDG spec says to ignore relative values.
    const QString state = qEnvironmentVariable("XDG_STATE_HOME");
    if (!state.isEmpty() && QDir::isAbsolutePath(state))
        return QDir::cleanPath(state + QLatin1String("/multilane"));
    return QDir::homePath() + QLatin1String("/.local/state/multilane");
}

QString ResumeJournal::keyFor(const SourceFile &file)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(file.localPathUtf8());
    hash.addData(QByteArrayView("\0", 1)); // so ("ab","c") and ("a","bc") differ
    hash.addData(file.destinationPathUtf8());
    // 64 bits: collisions are out of reach for any number of files one client has unfinished.
    return QString::fromLatin1(hash.result().left(8).toHex());
}

quint32 ResumeJournal::checksum(QByteArrayView bytes)
{
    return JournalRecords::checksum(bytes);
}

QString ResumeJournal::logPath() const
{
    return m_log->logPath();
}

bool ResumeJournal::isOpen() const
{
    return m_log->isOpen();
}

ResumeJournal::Snapshot ResumeJournal::load() const
{
    JournalModel model;
    QFile file(logPath());
    if (!file.exists())
        return {};
    if (!file.open(QIODevice::ReadOnly)) {
        Snapshot snapshot;
        snapshot.warnings.append(QStringLiteral("cannot read %1: %2; unfinished uploads cannot be listed or "
                                                "resumed until it is readable")
                                     .arg(logPath(), file.errorString()));
        return snapshot;
    }
    const QByteArray bytes = file.readAll();
    qsizetype position = 0;
    qsizetype firstUnknown = -1;
    int unknown = 0;
    while (position < bytes.size()) {
        const qsizetype newline = bytes.indexOf('\n', position);
        const qsizetype end = newline < 0 ? bytes.size() : newline + 1;
        // A line without its '\n' is a write that a kill cut short, even if it happens to parse.
        const std::optional<QJsonObject> record =
            newline < 0 ? std::nullopt
                        : JournalRecords::decode(QByteArrayView(bytes).sliced(position, newline - position));
        if (!record) {
            // Everything after a damaged record is ignored: it may depend on what was lost.
            const qsizetype after = bytes.size() - end;
            model.addWarning(
                QStringLiteral("journal.log: ignored a damaged record at byte %1%2; the uploads it "
                               "described will be checked with the receivers")
                    .arg(position)
                    .arg(after > 0 ? QStringLiteral(" (and %1 bytes after it)").arg(after) : QString()));
            break;
        }
        if (!model.apply(*record)) {
            if (unknown++ == 0)
                firstUnknown = position;
        }
        position = end;
    }
    if (unknown > 0) {
        model.addWarning(QStringLiteral("journal.log: skipped %1 record(s) this version does not understand, "
                                        "the first at byte %2")
                             .arg(unknown)
                             .arg(firstUnknown));
    }
    return model.view();
}

std::optional<QString> ResumeJournal::open()
{
    if (auto error = m_log->lock())
        return error;
    const Snapshot loaded = load();
    auto model = std::make_unique<JournalModel>();
    for (const QString &warning : loaded.warnings)
        model->addWarning(warning);
    for (const JournalBatch &batch : loaded.batches)
        model->addBatch(batch);
    for (const JournalFile &file : loaded.files)
        model->addFile(file);
    for (const LinkMemory &memory : loaded.links)
        model->rememberLink(memory);
    if (auto error = m_log->rewrite(model->compacted()))
        return error;
    m_model = std::move(model);
    return std::nullopt;
}

const ResumeJournal::Snapshot &ResumeJournal::state() const
{
    return m_model->view();
}

std::optional<JournalFile> ResumeJournal::file(const QString &key) const
{
    return m_model->find(key);
}

void ResumeJournal::append(const QByteArray &json)
{
    // At once, behind what was held and in the same write(): the log keeps the order things
    // happened in.
    m_held += JournalRecords::frame(json);
    writeHeldRecords();
}

void ResumeJournal::hold(const QByteArray &json)
{
    m_held += JournalRecords::frame(json);
    if (m_held.size() >= HeldBytes)
        writeHeldRecords();
}

void ResumeJournal::writeHeldRecords()
{
    if (m_held.isEmpty())
        return;
    m_log->append(m_held);
    m_held.clear();
}

QString ResumeJournal::addBatch(JournalBatch batch)
{
    if (batch.createdMs <= 0)
        batch.createdMs = QDateTime::currentMSecsSinceEpoch();
    const QString stamp =
        QDateTime::fromMSecsSinceEpoch(batch.createdMs, Qt::UTC).toString(QStringLiteral("yyyyMMdd-HHmmss"));
    do {
        batch.id = stamp + u'-' +
                   QString::number(QRandomGenerator::global()->generate(), 16).rightJustified(8, u'0');
    } while (m_model->hasBatch(batch.id));
    m_model->addBatch(batch);
    append(JournalRecords::compact(JournalRecords::batch(batch)));
    return batch.id;
}

std::optional<QString> ResumeJournal::addFile(const QString &batchId, const SourceFile &file)
{
    if (!m_model->hasBatch(batchId))
        return std::nullopt;
    const QString key = keyFor(file);
    m_model->addFile(batchId, key, file);
    append(JournalRecords::compact(JournalRecords::file(batchId, key, file)));
    return key;
}

bool ResumeJournal::addFiles(const QString &batchId, const QList<SourceFile> &files)
{
    if (!m_model->hasBatch(batchId))
        return false;
    m_model->reserveFiles(files.size());
    for (const SourceFile &file : files) {
        const QString key = keyFor(file);
        m_model->addFile(batchId, key, file);
        hold(JournalRecords::compact(JournalRecords::file(batchId, key, file)));
    }
    writeHeldRecords();
    return true;
}

void ResumeJournal::setUpload(const QString &key, const QString &uploadId, qint64 chunkSize)
{
    if (!m_model->setUpload(key, uploadId, chunkSize))
        return;
    append(JournalRecords::compact(JournalRecords::upload(*m_model->find(key), false)));
}

void ResumeJournal::acknowledgeChunk(const QString &key, int chunk, const QByteArray &receipt)
{
    if (chunk < 0)
        return;
    // A receipt that would need escaping is not kept: the server is asked again on resume.
    const QByteArray kept =
        JournalRecords::isPlainToken(QString::fromLatin1(receipt)) ? receipt : QByteArray();
    if (m_model->acknowledge(key, chunk, kept))
        append(JournalRecords::ack(key, chunk, kept));
}

void ResumeJournal::endFile(const QString &key)
{
    endFileSoon(key);
    writeHeldRecords();
}

void ResumeJournal::endFileSoon(const QString &key)
{
    if (m_model->remove(key))
        hold(JournalRecords::compact(JournalRecords::end(key)));
}

void ResumeJournal::rememberLink(const LinkMemory &memory)
{
    m_model->rememberLink(memory);
    append(JournalRecords::compact(JournalRecords::link(memory)));
}

std::optional<LinkMemory> ResumeJournal::rememberedLink(const QString &network) const
{
    const LinkMemory *memory = m_model->link(network);
    return memory ? std::optional<LinkMemory>(*memory) : std::nullopt;
}

std::optional<QString> ResumeJournal::flush()
{
    writeHeldRecords();
    return m_log->flush();
}

} // namespace multilane
