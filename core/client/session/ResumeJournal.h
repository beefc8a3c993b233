#pragma once

#include "JournalModel.h"
#include "ResumeJournalTypes.h"

#include <QByteArrayView>
#include <QString>
#include <memory>
#include <optional>

namespace multilane {

class DurableLog;

// The client's crash-safe record of every unfinished upload: an append-only log of CRC-checked
// JSON lines (JournalRecords) that `multilane resume` and the window replay after a crash,
// kill -9 or Ctrl-C. Each open() compacts the log to the live state (JournalModel), so it does
// not grow across runs; DurableLog does the POSIX part. Not thread-safe.
class ResumeJournal {
public:
    using Snapshot = JournalModel::Snapshot;

    // `directory` holds journal.log; it is created (0700) by open(), never by load().
    explicit ResumeJournal(const QString &directory);
    ~ResumeJournal(); // fdatasyncs and closes the log, releases the lock
    ResumeJournal(const ResumeJournal &) = delete;
    ResumeJournal &operator=(const ResumeJournal &) = delete;

    // $XDG_STATE_HOME/multilane, or ~/.local/state/multilane when that is unset or relative.
    static QString defaultDirectory();
    // A stable, JSON-safe identity for a file: hex of a hash of (localPath, destinationPath).
    static QString keyFor(const SourceFile &file);
    // CRC-32 (IEEE 802.3, as zlib) of the bytes: the checksum in front of each record.
    static quint32 checksum(QByteArrayView bytes);

    QString directory() const { return m_directory; }
    QString logPath() const;

    // Reads the journal without changing anything (for `multilane status`); a missing folder or
    // log is an empty snapshot.
    Snapshot load() const;
    // Locks the folder, loads, compacts the log and keeps it open for appending. Returns what
    // went wrong (with the path) or nullopt. Without a successful open() changes stay in memory.
    std::optional<QString> open();
    bool isOpen() const;
    // The live state after open() and every change; rebuilt on demand, so call it per refresh,
    // not per chunk (use file() for that).
    const Snapshot &state() const;
    // The live record of one file, or nullopt once ended or never added.
    std::optional<JournalFile> file(const QString &key) const;

    // Records a new invocation; assigns, stores and returns its id (UTC timestamp + random).
    QString addBatch(JournalBatch batch);
    // Records a file to send in `batchId` (replacing an older record of the same file, upload
    // id and acknowledgements included). Returns its key, or nullopt if the batch is unknown.
    std::optional<QString> addFile(const QString &batchId, const SourceFile &file);
    // Records all of `files` in `batchId`, as addFile() would each, their records written some
    // 64 KiB at a time rather than one write() each. False if the batch is unknown.
    bool addFiles(const QString &batchId, const QList<SourceFile> &files);
    // A server accepted the create; a different id or chunk size forgets the acknowledged chunks.
    void setUpload(const QString &key, const QString &uploadId, qint64 chunkSize);
    // A server acknowledged `chunk` of the file with `receipt` (hex or letters; may be empty):
    // one small append, O(1) for in-order chunks.
    void acknowledgeChunk(const QString &key, int chunk, const QByteArray &receipt = {});
    // The file is done, skipped, or failed for good: it leaves the journal.
    void endFile(const QString &key);
    // The same, its record written with the next record or writeHeldRecords(), flush() or the
    // end, whichever comes first: many files ending at once share one write(). A kill before
    // then forgets only that those files ended; a resume asks the server, which has them.
    void endFileSoon(const QString &key);
    void writeHeldRecords();
    // What the tuner settled at on memory.network (replacing the older estimate of that network).
    void rememberLink(const LinkMemory &memory);
    // The last estimate taken on `network`, if any.
    std::optional<LinkMemory> rememberedLink(const QString &network) const;
    // fdatasyncs the log (for Ctrl-C and exit); returns the first write error since open(), if any.
    std::optional<QString> flush();

private:
    // Writes the record now (with whatever is held, in order).
    void append(const QByteArray &json);
    // Keeps the record for a later write, shared with others: a write() a record cost as much as
    // the rest of adding or ending a small file. Each write holds whole records; one cut short by
    // a kill fails its CRC at load.
    void hold(const QByteArray &json);
    static constexpr qsizetype HeldBytes = 64 * 1024;

    QString m_directory;
    std::unique_ptr<JournalModel> m_model;
    std::unique_ptr<DurableLog> m_log;
    QByteArray m_held; // whole records of endFileSoon() and addFiles(), not yet written
};

} // namespace multilane
