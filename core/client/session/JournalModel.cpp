#include "JournalModel.h"

#include "JournalRecords.h"

#include <QJsonArray>
#include <QSet>
#include <algorithm>
#include <climits>

namespace multilane {

// A sanity bound for acknowledged-chunk ranges read from disk, so a bad record cannot make us
// allocate gigabytes (8 MiB chunks × 16M chunks is 128 TiB).
static constexpr qint64 MaxChunks = qint64(1) << 24;

void JournalModel::addBatch(const JournalBatch &batch)
{
    m_batches.insert(batch.id, {batch, m_nextOrder++});
    m_dirty = true;
}

void JournalModel::addFile(const QString &batchId, const QString &key, const SourceFile &source)
{
    JournalFile file;
    file.batchId = batchId;
    file.key = key;
    file.source = source;
    addFile(file);
}

void JournalModel::addFile(const JournalFile &file)
{
    m_files.insert(file.key, {file, m_nextOrder++});
    m_dirty = true;
}

void JournalModel::setUpload(JournalFile &file, const QString &uploadId, qint64 chunkSize)
{
    if (file.uploadId != uploadId || file.chunkSize != chunkSize) {
        file.acknowledgedChunks.clear();
        file.receipts.clear();
    }
    file.uploadId = uploadId;
    file.chunkSize = chunkSize;
    m_dirty = true;
}

bool JournalModel::acknowledge(JournalFile &file, int chunk, const QByteArray &receipt)
{
    QList<int> &chunks = file.acknowledgedChunks;
    m_dirty = true;
    if (!receipt.isEmpty())
        file.receipts.insert(chunk, receipt);
    if (chunks.isEmpty() || chunks.constLast() < chunk) {
        chunks.append(chunk);
        return true;
    }
    const auto at = std::lower_bound(chunks.begin(), chunks.end(), chunk);
    if (*at == chunk)
        return false;
    chunks.insert(at, chunk);
    return true;
}

bool JournalModel::remove(const QString &key)
{
    if (!m_files.remove(key))
        return false;
    m_dirty = true;
    return true;
}

JournalFile *JournalModel::find(const QString &key)
{
    const auto it = m_files.find(key);
    return it == m_files.end() ? nullptr : &it->file;
}

const JournalFile *JournalModel::find(const QString &key) const
{
    const auto it = m_files.constFind(key);
    return it == m_files.cend() ? nullptr : &it->file;
}

void JournalModel::addWarning(const QString &warning)
{
    m_warnings.append(warning);
    m_dirty = true;
}

void JournalModel::rememberLink(const LinkMemory &memory)
{
    m_links.insert(memory.network, memory);
    if (m_links.size() > MaxLinks) {
        const auto oldest =
            std::min_element(m_links.begin(), m_links.end(),
                             [](const LinkMemory &a, const LinkMemory &b) { return a.takenMs < b.takenMs; });
        m_links.erase(oldest);
    }
    m_dirty = true;
}

const LinkMemory *JournalModel::link(const QString &network) const
{
    const auto it = m_links.constFind(network);
    return it == m_links.cend() ? nullptr : &*it;
}

bool JournalModel::apply(const QJsonObject &record)
{
    const QString type = record.value(QLatin1String("t")).toString();
    const QString key = record.value(QLatin1String("key")).toString();
    if (type == QLatin1String("batch")) {
        const std::optional<JournalBatch> batch = JournalRecords::readBatch(record);
        if (batch)
            addBatch(*batch);
        return batch.has_value();
    }
    if (type == QLatin1String("link")) {
        const std::optional<LinkMemory> memory = JournalRecords::readLink(record);
        if (memory)
            rememberLink(*memory);
        return memory.has_value();
    }
    if (type == QLatin1String("file")) {
        const QString batchId = record.value(QLatin1String("batch")).toString();
        SourceFile source;
        source.localPath = record.value(QLatin1String("path")).toString();
        source.destinationPath = record.value(QLatin1String("dest")).toString();
        source.size = record.value(QLatin1String("size")).toInteger();
        source.mtimeMs = record.value(QLatin1String("mtime")).toInteger();
        if (!m_batches.contains(batchId) || !JournalRecords::isPlainToken(key) || source.localPath.isEmpty())
            return false;
        addFile(batchId, key, source);
        return true;
    }
    // The records below may name a file that ended since; that is not damage.
    JournalFile *file = find(key);
    if (type == QLatin1String("upload"))
        return applyUpload(file, record);
    if (type == QLatin1String("ack")) {
        const qint64 chunk = record.value(QLatin1String("chunk")).toInteger(-1);
        if (chunk < 0 || chunk > INT_MAX)
            return false;
        if (file)
            acknowledge(*file, int(chunk), record.value(QLatin1String("r")).toString().toLatin1());
        return true;
    }
    if (type == QLatin1String("end")) {
        remove(key);
        return true;
    }
    return false;
}

bool JournalModel::applyUpload(JournalFile *file, const QJsonObject &record)
{
    if (!file)
        return true;
    setUpload(*file, record.value(QLatin1String("id")).toString(),
              record.value(QLatin1String("chunkSize")).toInteger());
    // Compaction folds the acks into [first, last] ranges on the upload record.
    qint64 total = 0;
    for (const QJsonValue &range : record.value(QLatin1String("acked")).toArray()) {
        const qint64 first = range.toArray().at(0).toInteger(-1);
        const qint64 last = range.toArray().at(1).toInteger(-1);
        total += last - first + 1;
        if (first < 0 || last < first || last > INT_MAX || total > MaxChunks)
            return false;
        for (qint64 chunk = first; chunk <= last; ++chunk)
            acknowledge(*file, int(chunk), {});
    }
    for (const QJsonValue &pair : record.value(QLatin1String("receipts")).toArray()) {
        const qint64 chunk = pair.toArray().at(0).toInteger(-1);
        const QByteArray receipt = pair.toArray().at(1).toString().toLatin1();
        if (chunk < 0 || chunk > INT_MAX)
            return false;
        if (!receipt.isEmpty() && file->acknowledgedChunks.contains(int(chunk)))
            file->receipts.insert(int(chunk), receipt);
    }
    return true;
}

const JournalModel::Snapshot &JournalModel::view() const
{
    if (!m_dirty)
        return m_snapshot;
    QList<const FileEntry *> liveFiles;
    QSet<QString> liveBatches;
    for (const FileEntry &entry : m_files) {
        liveFiles.append(&entry);
        liveBatches.insert(entry.file.batchId);
    }
    QList<const BatchEntry *> liveBatchEntries;
    for (const BatchEntry &entry : m_batches) {
        if (liveBatches.contains(entry.batch.id))
            liveBatchEntries.append(&entry);
    }
    const auto byOrder = [](const auto *a, const auto *b) { return a->order < b->order; };
    std::sort(liveFiles.begin(), liveFiles.end(), byOrder);
    std::sort(liveBatchEntries.begin(), liveBatchEntries.end(), byOrder);
    m_snapshot = {};
    for (const BatchEntry *entry : liveBatchEntries)
        m_snapshot.batches.append(entry->batch);
    for (const FileEntry *entry : liveFiles)
        m_snapshot.files.append(entry->file);
    m_snapshot.warnings = m_warnings;
    m_snapshot.links = m_links.values();
    m_dirty = false;
    return m_snapshot;
}

QByteArray JournalModel::compacted() const
{
    const Snapshot &live = view();
    QByteArray log;
    QList<LinkMemory> links = m_links.values();
    std::sort(links.begin(), links.end(),
              [](const LinkMemory &a, const LinkMemory &b) { return a.takenMs > b.takenMs; });
    for (const LinkMemory &memory : std::as_const(links))
        log += JournalRecords::frame(JournalRecords::compact(JournalRecords::link(memory)));
    for (const JournalBatch &batch : live.batches)
        log += JournalRecords::frame(JournalRecords::compact(JournalRecords::batch(batch)));
    for (const JournalFile &file : live.files) {
        log += JournalRecords::frame(
            JournalRecords::compact(JournalRecords::file(file.batchId, file.key, file.source)));
        if (!file.uploadId.isEmpty() || !file.acknowledgedChunks.isEmpty())
            log += JournalRecords::frame(JournalRecords::compact(JournalRecords::upload(file, true)));
    }
    return log;
}

} // namespace multilane
