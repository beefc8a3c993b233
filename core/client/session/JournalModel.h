#pragma once

#include "ResumeJournalTypes.h"

#include <QHash>
#include <QJsonObject>
#include <QStringList>

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
    // A different upload id or chunk size forgets the acknowledged chunks.
    void setUpload(JournalFile &file, const QString &uploadId, qint64 chunkSize);
    // False when the chunk was already acknowledged.
    bool acknowledge(JournalFile &file, int chunk, const QByteArray &receipt);
    bool remove(const QString &key);
    JournalFile *find(const QString &key);
    const JournalFile *find(const QString &key) const;
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
    bool applyUpload(JournalFile *file, const QJsonObject &record);

    struct BatchEntry {
        JournalBatch batch;
        quint64 order = 0;
    };
    struct FileEntry {
        JournalFile file;
        quint64 order = 0;
    };
    QHash<QString, BatchEntry> m_batches;
    QHash<QString, FileEntry> m_files;
    QHash<QString, LinkMemory> m_links; // network -> the last estimate taken on it
    quint64 m_nextOrder = 0;
    QStringList m_warnings;
    mutable Snapshot m_snapshot;
    mutable bool m_dirty = true;
};

} // namespace multilane
