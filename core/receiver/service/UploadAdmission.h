#pragma once

#include "AccessToken.h"
#include "ProtocolError.h"
#include "ReceiverLimits.h"

#include <QHash>
#include <QString>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>

namespace multilane {

class UploadStore;

// Decides whether new bytes may come in: file and chunk size limits, a token's quota and
// unfinished-upload count, and the free-space reserve. Each refusal carries the figures and
// says what to do. Reads the store and the disk; its state, for quotas, is a short-lived cache of
// folder usage and the whole files whose bodies are arriving (the store has no record of those
// until they are placed). The caller serialises admit-then-create where it matters.
class UploadAdmission {
public:
    // How long a folder's measured usage is reused (plus what was admitted since): walking a
    // folder of many files for every small PUT would cost more than the PUT (docs/admin.md).
    static constexpr std::chrono::seconds UsageReuse{5};

    using Clock = std::function<std::chrono::steady_clock::time_point()>;
    // Bytes still free for uploads on the storage, nullopt when it cannot tell.
    using FreeSpace = std::function<std::optional<qint64>()>;

    // `freeSpace` unset: the store's (UploadStore::space()). `clock` unset: the steady clock (tests
    // pass their own to age the usage cache).
    UploadAdmission(UploadStore &store, ReceiverLimits limits, FreeSpace freeSpace = {}, Clock clock = {});

    const ReceiverLimits &limits() const { return m_limits; }

    std::optional<ProtocolError> checkFileSize(const QString &path, qint64 size) const;
    std::optional<ProtocolError> checkChunkSize(qint64 chunkSize) const;
    // What the store can hold (UploadStore::limits()): a file of `size` bytes, and for an upload its
    // chunks of `chunkSize` (unset for a whole-file PUT).
    std::optional<ProtocolError> checkStoreLimits(const QString &path, qint64 size,
                                                  std::optional<qint64> chunkSize) const;
    // A new upload (POST /v1/uploads that creates one) or a whole file (PUT /v1/files) of `size`
    // bytes at `path` by `token`. Resumed uploads are not asked: their space is already counted.
    // A whole file admitted here counts against its token's quota until wholeFileEnded().
    std::optional<ProtocolError> admitNewFile(const AccessToken &token, const QString &path, qint64 size,
                                              bool isUpload) const;
    // The body of an admitted whole file was stored (now on disk, counted there) or not (gone).
    void wholeFileEnded(const AccessToken &token, qint64 size, bool stored) const;
    // Before a chunk is written: refused while free space is below the reserve, so the disk never
    // fills up under an upload (whose .part and records stay intact for a later retry).
    std::optional<ProtocolError> admitChunkWrite(qint64 index) const;

private:
    std::optional<ProtocolError> checkQuota(const AccessToken &token, const QString &path, qint64 size,
                                            bool isUpload) const;
    std::optional<ProtocolError> checkReserve(const QString &path, qint64 size) const;
    // Bytes used below `folder`: measured at most UsageReuse ago, plus what was admitted since,
    // plus whole files arriving. Called with m_usageMutex held.
    qint64 usedBytesLocked(const QString &folder) const;
    void chargeLocked(const QString &folder, qint64 bytes) const;

    struct MeasuredUsage {
        qint64 bytes = 0;
        std::chrono::steady_clock::time_point measuredAt;
    };

    UploadStore &m_store;
    ReceiverLimits m_limits;
    FreeSpace m_freeSpace;
    Clock m_clock;
    // Admission, check and charge happen under one lock: two requests admitted at once must not
    // both see the room only one of them fits in.
    mutable std::mutex m_usageMutex;
    mutable QHash<QString, MeasuredUsage> m_usage;
    mutable QHash<QString, qint64> m_wholeFilesArriving; // folder -> bytes admitted, not yet stored
};

} // namespace multilane
