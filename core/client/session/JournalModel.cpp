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

std::optional<quint64> JournalModel::packedKey(const QString &key)
{
    if (key.size() != 16)
        return std::nullopt;
    for (const QChar c : key) {
        if (!((c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f')))
            return std::nullopt;
    }
    return key.toULongLong(nullptr, 16);
}

QString JournalModel::keyString(quint64 packed)
{
    return QStringLiteral("%1").arg(packed, 16, 16, QLatin1Char('0'));
}

QHash<quint64, JournalModel::FileEntry>::iterator JournalModel::entryOf(const QString &key)
{
    const std::optional<quint64> packed = packedKey(key);
    return packed ? m_files.find(*packed) : m_files.end();
}

JournalModel::FileEntry::FileEntry(const FileEntry &other)
    : source(other.source)
    , order(other.order)
    , batch(other.batch)
    , upload(other.upload ? std::make_unique<UploadProgress>(*other.upload) : nullptr)
{}

JournalModel::FileEntry &JournalModel::FileEntry::operator=(const FileEntry &other)
{
    if (this != &other)
        *this = FileEntry(other);
    return *this;
}

int JournalModel::batchIndex(const QString &batchId)
{
    const auto it = m_batchIndexes.constFind(batchId);
    if (it != m_batchIndexes.cend())
        return *it;
    m_batchIds.append(batchId);
    m_batchIndexes.insert(batchId, int(m_batchIds.size() - 1));
    return int(m_batchIds.size() - 1);
}

JournalFile JournalModel::fileOf(const QString &key, const FileEntry &entry) const
{
    JournalFile file;
    file.batchId = m_batchIds.value(entry.batch);
    file.key = key;
    file.source = entry.source;
    if (entry.upload) {
        file.uploadId = entry.upload->uploadId;
        file.chunkSize = entry.upload->chunkSize;
        file.acknowledgedChunks = entry.upload->acknowledgedChunks;
        file.receipts = entry.upload->receipts;
    }
    return file;
}

JournalModel::UploadProgress &JournalModel::progressOf(FileEntry &entry)
{
    if (!entry.upload)
        entry.upload = std::make_unique<UploadProgress>();
    return *entry.upload;
}

void JournalModel::addFile(const JournalFile &file)
{
    FileEntry entry;
    entry.batch = batchIndex(file.batchId);
    entry.source = file.source;
    entry.order = m_nextOrder++;
    if (!file.uploadId.isEmpty() || file.chunkSize != 0 || !file.acknowledgedChunks.isEmpty()) {
        entry.upload = std::make_unique<UploadProgress>(
            UploadProgress{file.uploadId, file.chunkSize, file.acknowledgedChunks, file.receipts});
    }
    const std::optional<quint64> key = packedKey(file.key);
    if (!key)
        return; // not a key keyFor() makes; apply() refuses such records first
    m_files.insert(*key, std::move(entry));
    m_dirty = true;
}

bool JournalModel::setUpload(const QString &key, const QString &uploadId, qint64 chunkSize)
{
    const auto it = entryOf(key);
    if (it == m_files.end())
        return false;
    UploadProgress &upload = progressOf(*it);
    if (upload.uploadId != uploadId || upload.chunkSize != chunkSize) {
        upload.acknowledgedChunks.clear();
        upload.receipts.clear();
    }
    upload.uploadId = uploadId;
    upload.chunkSize = chunkSize;
    m_dirty = true;
    return true;
}

bool JournalModel::acknowledge(const QString &key, int chunk, const QByteArray &receipt)
{
    const auto it = entryOf(key);
    if (it == m_files.end())
        return false;
    UploadProgress &upload = progressOf(*it);
    QList<int> &chunks = upload.acknowledgedChunks;
    m_dirty = true;
    if (!receipt.isEmpty())
        upload.receipts.insert(chunk, receipt);
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
    const std::optional<quint64> packed = packedKey(key);
    if (!packed || !m_files.remove(*packed))
        return false;
    m_dirty = true;
    return true;
}

std::optional<JournalFile> JournalModel::find(const QString &key) const
{
    const std::optional<quint64> packed = packedKey(key);
    const auto it = packed ? m_files.constFind(*packed) : m_files.cend();
    if (it == m_files.cend())
        return std::nullopt;
    return fileOf(key, *it);
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
        const SourceFile source(record.value(QLatin1String("path")).toString(),
                                record.value(QLatin1String("dest")).toString(),
                                record.value(QLatin1String("size")).toInteger(),
                                record.value(QLatin1String("mtime")).toInteger());
        if (!m_batches.contains(batchId) || !packedKey(key) || source.localPathUtf8().isEmpty())
            return false;
        addFile(batchId, key, source);
        return true;
    }
    // The records below may name a file that ended since; that is not damage.
    if (type == QLatin1String("upload"))
        return applyUpload(key, record);
    if (type == QLatin1String("ack")) {
        const qint64 chunk = record.value(QLatin1String("chunk")).toInteger(-1);
        if (chunk < 0 || chunk > INT_MAX)
            return false;
        acknowledge(key, int(chunk), record.value(QLatin1String("r")).toString().toLatin1());
        return true;
    }
    if (type == QLatin1String("end")) {
        remove(key);
        return true;
    }
    return false;
}

bool JournalModel::applyUpload(const QString &key, const QJsonObject &record)
{
    if (!setUpload(key, record.value(QLatin1String("id")).toString(),
                   record.value(QLatin1String("chunkSize")).toInteger()))
        return true;
    UploadProgress &upload = *entryOf(key)->upload; // setUpload() made it
    // Compaction folds the acks into [first, last] ranges on the upload record.
    qint64 total = 0;
    for (const QJsonValue &range : record.value(QLatin1String("acked")).toArray()) {
        const qint64 first = range.toArray().at(0).toInteger(-1);
        const qint64 last = range.toArray().at(1).toInteger(-1);
        total += last - first + 1;
        if (first < 0 || last < first || last > INT_MAX || total > MaxChunks)
            return false;
        for (qint64 chunk = first; chunk <= last; ++chunk)
            acknowledge(key, int(chunk), {});
    }
    for (const QJsonValue &pair : record.value(QLatin1String("receipts")).toArray()) {
        const qint64 chunk = pair.toArray().at(0).toInteger(-1);
        const QByteArray receipt = pair.toArray().at(1).toString().toLatin1();
        if (chunk < 0 || chunk > INT_MAX)
            return false;
        if (!receipt.isEmpty() && upload.acknowledgedChunks.contains(int(chunk)))
            upload.receipts.insert(int(chunk), receipt);
    }
    return true;
}

const JournalModel::Snapshot &JournalModel::view() const
{
    if (!m_dirty)
        return m_snapshot;
    QList<std::pair<quint64, QHash<quint64, FileEntry>::const_iterator>> liveFiles;
    QSet<QString> liveBatches;
    for (auto it = m_files.cbegin(); it != m_files.cend(); ++it) {
        liveFiles.append({it->order, it});
        liveBatches.insert(m_batchIds.value(it->batch));
    }
    QList<const BatchEntry *> liveBatchEntries;
    for (const BatchEntry &entry : m_batches) {
        if (liveBatches.contains(entry.batch.id))
            liveBatchEntries.append(&entry);
    }
    std::sort(liveFiles.begin(), liveFiles.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    std::sort(liveBatchEntries.begin(), liveBatchEntries.end(),
              [](const BatchEntry *a, const BatchEntry *b) { return a->order < b->order; });
    m_snapshot = {};
    for (const BatchEntry *entry : liveBatchEntries)
        m_snapshot.batches.append(entry->batch);
    m_snapshot.files.reserve(liveFiles.size());
    for (const auto &[order, it] : std::as_const(liveFiles))
        m_snapshot.files.append(fileOf(keyString(it.key()), *it));
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
