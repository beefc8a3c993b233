#pragma once

#include "BodyReader.h"
#include "Result.h"
#include "UploadTypes.h"

namespace multilane {

// What lies below one folder of the storage: finished files and unfinished uploads (counted at
// their full size, since their space is reserved when they are created).
struct FolderUsage {
    qint64 finishedBytes = 0; // only when asked for (it walks the folder)
    qint64 unfinishedBytes = 0;
    qint64 unfinishedUploads = 0;

    qint64 totalBytes() const { return finishedBytes + unfinishedBytes; }
};

// Where uploads are kept. LocalFolderStore keeps them in a folder; an S3-compatible store can
// implement the same calls, which is why nothing here speaks of file descriptors or POSIX paths.
// Implementations must be safe to call from many threads (and processes) at once.
class UploadStore {
public:
    virtual ~UploadStore() = default;

    // Creates the upload for spec's key (path, size, mtime), or finds the one that exists.
    // spec.path has already passed UploadPath::problem().
    virtual Result<CreateOutcome> createUpload(const UploadSpec &spec) = 0;
    virtual Result<UploadState> findUpload(const QByteArray &id) = 0;
    // Streams one chunk's body into place; `length` is the body's declared length.
    virtual Result<ChunkOutcome> writeChunk(const QByteArray &id, qint64 index, qint64 length,
                                            quint64 expectedHash, const BodyReader &body) = 0;
    // expectedSha256 is lowercase hex.
    virtual Result<FinishedFile> completeUpload(const QByteArray &id, const QByteArray &expectedSha256) = 0;
    virtual Result<Done> abortUpload(const QByteArray &id) = 0;
    // Stores a whole file from one body. expectedSha256 may be empty (not checked).
    virtual Result<FinishedFile> putFile(const QString &path, qint64 size, ConflictPolicy onConflict,
                                         const QByteArray &expectedSha256, const BodyReader &body) = 0;

    // Usage below `folder` (empty: the whole storage); finished bytes only if `withFinishedBytes`.
    virtual FolderUsage usage(const QString &folder, bool withFinishedBytes) = 0;
    // The destination path of an unfinished or finished upload, nullopt when there is none.
    virtual std::optional<QString> uploadPath(const QByteArray &id) = 0;
};

} // namespace multilane
