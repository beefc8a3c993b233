#pragma once

#include "BodyReader.h"
#include "Result.h"
#include "StoreTypes.h"
#include "UploadTypes.h"

#include <QString>
#include <chrono>
#include <optional>

namespace multilane {

// Where uploads are kept: the receiver's storage seam. LocalFolderStore keeps them in a folder; a
// store on object storage implements the same calls, which is why nothing here speaks of file
// descriptors or POSIX paths, and why everything the service and the daemon need of a store (its
// limits, usage, free space, expiry) is here: a new store is one folder under core/receiver/store/
// with one CMake target, runs tests/receiver's contract suite (StoreContract), and needs no change
// to the HTTP layer or the service. Implementations must be safe to call from many threads at once.
class UploadStore {
public:
    virtual ~UploadStore() = default;

    // Lifecycle.
    // Gets the store ready to serve (creates what is missing, checks it may write); the error
    // says what to do. Call once before anything else.
    virtual std::optional<ProtocolError> prepare() = 0;
    // Where the uploads go, for people: a folder, a bucket's URL.
    virtual QString location() const = 0;
    virtual StoreLimits limits() const = 0;

    // Uploads.
    // Creates the upload for spec's key (path, size, mtime), or finds the one that exists.
    // spec.path has already passed UploadPath::problem(), the sizes ChunkLayout::problem() and
    // limits().
    virtual Result<CreateOutcome> createUpload(const UploadSpec &spec) = 0;
    virtual Result<UploadState> findUpload(const QByteArray &id) = 0;
    // The unfinished upload a create with this key would find; no_such_upload when there is none.
    virtual Result<UploadState> findUploadByKey(const UploadKey &key) = 0;
    // Streams one chunk's body into place; `length` is the body's declared length.
    virtual Result<ChunkOutcome> writeChunk(const QByteArray &id, qint64 index, qint64 length,
                                            quint64 expectedHash, const BodyReader &body) = 0;
    // expectedSha256 is lowercase hex.
    virtual Result<FinishedFile> completeUpload(const QByteArray &id, const QByteArray &expectedSha256) = 0;
    // completeUpload, if every chunk is held (one being written is not); nullopt otherwise, and
    // when the upload is gone (another completed it). Whichever chunk ends last completes
    // (X-Complete-SHA256), so it must not wait for a chunk still being written.
    virtual std::optional<Result<FinishedFile>> completeIfWhole(const QByteArray &id,
                                                                const QByteArray &expectedSha256) = 0;
    virtual Result<Done> abortUpload(const QByteArray &id) = 0;
    // Stores a whole file from one body. expectedSha256 may be empty (not checked).
    virtual Result<FinishedFile> putFile(const QString &path, qint64 size, ConflictPolicy onConflict,
                                         const QByteArray &expectedSha256, const BodyReader &body) = 0;
    // The destination path of an unfinished or finished upload, nullopt when there is none.
    virtual std::optional<QString> uploadPath(const QByteArray &id) = 0;

    // Space.
    // Usage below `folder` (empty: the whole storage); finished bytes only if `withFinishedBytes`.
    virtual FolderUsage usage(const QString &folder, bool withFinishedBytes) = 0;
    // Asked before every new upload and chunk (for --disk-reserve) and at every /metrics scrape:
    // it must be cheap.
    virtual StorageSpace space() = 0;

    // Expiry.
    // Removes unfinished uploads nobody touched for `expireAfter` (0: never) and the records of
    // finished uploads that old, as of `now`, plus the store's own leftovers (temporary files of
    // requests that died). Finished files are never removed. Safe while uploads run: an upload
    // being written is left for the next pass.
    virtual SweepReport sweepExpired(std::chrono::seconds expireAfter,
                                     std::chrono::system_clock::time_point now) = 0;
};

} // namespace multilane
