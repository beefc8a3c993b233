#pragma once

#include "ChunkLayout.h"

#include <QStringList>
#include <QtGlobal>
#include <limits>
#include <optional>

namespace multilane {

// What lies below one folder of the storage: finished files and unfinished uploads (counted at
// their full size, since their space is reserved when they are created).
struct FolderUsage {
    qint64 finishedBytes = 0; // only when asked for (it walks the folder)
    qint64 unfinishedBytes = 0;
    qint64 unfinishedUploads = 0;

    qint64 totalBytes() const { return finishedBytes + unfinishedBytes; }
};

// Room on the storage, each figure only when the store can tell (object storage often cannot).
struct StorageSpace {
    std::optional<qint64> freeBytes; // what uploads may still take
    std::optional<qint64> totalBytes;
};

// What a store can hold, declared rather than assumed: the service refuses a create outside it
// before anything is stored. The protocol's own limits (ChunkLayout) are the widest a store may
// declare; a store on object storage may need larger chunks (S3: 5 MiB but for the last part) or
// fewer of them (S3: 10,000 parts).
struct StoreLimits {
    qint64 minChunkSize = 1; // every chunk but the last
    qint64 maxChunkSize = ChunkLayout::MaxChunkSize;
    qint64 maxChunkCount = ChunkLayout::MaxChunkCount;
    qint64 maxFileSize = std::numeric_limits<qint64>::max();
};

// One pass of the expiry sweep.
struct SweepReport {
    QStringList lines;         // one for the log per thing removed
    qint64 expiredUploads = 0; // unfinished uploads among them (for /metrics)
};

} // namespace multilane
