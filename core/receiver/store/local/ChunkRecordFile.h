#pragma once

#include "UniqueFd.h"

#include <QByteArray>
#include <QList>
#include <QtGlobal>
#include <fcntl.h>
#include <optional>

namespace multilane {

// The `<id>.chunks` file: one 16-byte record per chunk (u64 XXH3 little-endian, u8 held flag,
// 7 bytes padding). Writers serialise on a chunk with an OFD lock on its record; complete and
// abort lock the whole file. OFD locks belong to the open file, so they work between threads of
// one process as well as between processes, and closing this object releases them.
class ChunkRecordFile {
public:
    static constexpr qint64 RecordSize = 16;

    struct Record {
        quint64 hash = 0;
        bool held = false;
    };

    // Makes sure the file exists with room for chunkCount records (existing records are kept).
    static int ensure(const QByteArray &path, qint64 chunkCount);

    // 0 or errno (ENOENT when the upload is gone).
    int open(const QByteArray &path);
    // Both block until the lock is granted; 0 or errno.
    int lockRecord(qint64 index);
    int lockAll();
    // Without waiting: 0, EAGAIN when someone else holds it, or errno. unlockRecord() releases it.
    int tryLockRecord(qint64 index);
    int tryLockAll();
    int unlockRecord(qint64 index);
    // True when the file was unlinked (the upload completed or was aborted) after we opened it.
    bool isRemoved() const;

    std::optional<Record> read(qint64 index) const;
    // The raw bytes of records [first, first + count), nullopt when they cannot be read.
    std::optional<QByteArray> rawRecords(qint64 first, qint64 count) const;
    int write(qint64 index, const Record &record);
    struct HeldChunks {
        QList<qint64> indexes;
        QList<quint64> hashes; // XXH3 of each chunk in `indexes`, same order
    };
    // The chunks whose record is held, or nullopt when the file cannot be read.
    std::optional<HeldChunks> heldChunks(qint64 chunkCount) const;
    // Marks every chunk as not held (after the whole file failed its SHA-256).
    int clearAll(qint64 chunkCount);

private:
    int lock(qint64 start, qint64 length, int command = F_OFD_SETLKW, short type = F_WRLCK);

    UniqueFd m_fd;
};

} // namespace multilane
