#pragma once

#include "ResumeJournalTypes.h"

#include <QHash>
#include <QJsonObject>
#include <QStringList>
#include <memory>
#include <optional>

namespace multilane {

// The state the journal's records describe, kept in hashes so every record applies in O(1), and
// the compacted log that rebuilds it.
class JournalModel {
public:
    struct Snapshot {
        QList<JournalBatch> batches; // in creation order; only batches with live files
        QList<JournalFile> files;    // in the order they were (last) added
        QStringList warnings;        // damaged or unreadable records, each said with its consequence
        QList<LinkMemory> links;     // the last link estimate of each network
    };

    bool hasBatch(const QString &id) const { return m_batches.contains(id); }
    void addBatch(const JournalBatch &batch);
    void addFile(const QString &batchId, const QString &key, const SourceFile &source);
    void addFile(const JournalFile &file);
    // Room for `more` files: a batch of a million is hashed once, not rehashed at every doubling.
    void reserveFiles(qsizetype more) { m_files.reserve(m_files.size() + more); }
    // A different upload id or chunk size forgets the acknowledged chunks. False when the file
    // is not here.
    bool setUpload(const QString &key, const QString &uploadId, qint64 chunkSize);
    // False when the file is not here or the chunk was already acknowledged.
    bool acknowledge(const QString &key, int chunk, const QByteArray &receipt);
    bool remove(const QString &key);
    std::optional<JournalFile> find(const QString &key) const;
    void addWarning(const QString &warning);
    // The last link estimate of each network, of the MaxLinks networks seen last.
    void rememberLink(const LinkMemory &memory);
    const LinkMemory *link(const QString &network) const;
    static constexpr int MaxLinks = 8;

    // Applies one record read from disk; false when it is not one this version understands.
    bool apply(const QJsonObject &record);
    // The live state, rebuilt only after a change: call it per refresh, not per chunk.
    const Snapshot &view() const;
    // The live state as a log of records.
    QByteArray compacted() const;

private:
    bool applyUpload(const QString &key, const QJsonObject &record);

    // What a server holds of a file: only files sent in chunks have any.
    struct UploadProgress {
        QString uploadId;
        qint64 chunkSize = 0;
        QList<int> acknowledgedChunks;   // sorted, unique
        QHash<int, QByteArray> receipts; // chunk -> the server's receipt
    };
    // Kept small: a batch may hold a million files, and the model holds every one not ended.
    struct FileEntry {
        FileEntry() = default;
        FileEntry(const FileEntry &other);
        FileEntry &operator=(const FileEntry &other);
        FileEntry(FileEntry &&) noexcept = default;
        FileEntry &operator=(FileEntry &&) noexcept = default;
        ~FileEntry() = default;

        SourceFile source;
        quint64 order = 0;
        qint32 batch = -1;                      // in m_batchIds
        std::unique_ptr<UploadProgress> upload; // made by the first create or acknowledgement
    };
    JournalFile fileOf(const QString &key, const FileEntry &entry) const;
    int batchIndex(const QString &batchId);
    static UploadProgress &progressOf(FileEntry &entry);

    struct BatchEntry {
        JournalBatch batch;
        quint64 order = 0;
    };
    QHash<QString, BatchEntry> m_batches;
    QStringList m_batchIds;             // every batch id seen, in order: files name theirs by index
    QHash<QString, int> m_batchIndexes; // and the other way
    // By key: ResumeJournal::keyFor() is 16 hex digits, kept as the number they spell (a string
    // of them cost 88 bytes a file).
    QHash<quint64, FileEntry> m_files;
    static std::optional<quint64> packedKey(const QString &key);
    static QString keyString(quint64 packed);
    QHash<quint64, FileEntry>::iterator entryOf(const QString &key);
    QHash<QString, LinkMemory> m_links; // network -> the last estimate taken on it
    quint64 m_nextOrder = 0;
    QStringList m_warnings;
    mutable Snapshot m_snapshot;
    mutable bool m_dirty = true;
};

} // namespace multilane
