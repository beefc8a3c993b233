#pragma once

#include "DirectorySync.h"
#include "FilePlacer.h"
#include "PrefixHasher.h"
#include "UploadFiles.h"
#include "UploadStore.h"
#include "UploadSweeper.h"
#include "WriteLockStripes.h"

#include <QString>
#include <optional>

namespace multilane {

class ChunkRecordFile;

// Keeps uploads in a storage folder: finished files at their paths, upload state in
// <storage>/.multilane/uploads/<id>.json|.part|.chunks|.done (docs/protocol.md). All upload state
// is on disk, so any number of threads and receiver processes can share one folder; the only
// memory is a cache of SHA-256 prefixes (PrefixHasher) that makes complete cheaper when it hits.
class LocalFolderStore final : public UploadStore {
public:
    explicit LocalFolderStore(const QString &storageFolder);

    // Creates the storage folder and its private folder if missing.
    std::optional<ProtocolError> prepare() override;
    QString location() const override { return m_storageFolder; }
    StoreLimits limits() const override { return {}; }
    QString storageFolder() const { return m_storageFolder; }
    PrefixHasher &prefixHasher() { return m_prefixes; }

    Result<CreateOutcome> createUpload(const UploadSpec &spec) override;
    Result<UploadState> findUpload(const QByteArray &id) override;
    Result<UploadState> findUploadByKey(const UploadKey &key) override;
    Result<ChunkOutcome> writeChunk(const QByteArray &id, qint64 index, qint64 length, quint64 expectedHash,
                                    const BodyReader &body) override;
    Result<FinishedFile> completeUpload(const QByteArray &id, const QByteArray &expectedSha256) override;
    std::optional<Result<FinishedFile>> completeIfWhole(const QByteArray &id,
                                                        const QByteArray &expectedSha256) override;
    Result<Done> abortUpload(const QByteArray &id) override;
    Result<FinishedFile> putFile(const QString &path, qint64 size, ConflictPolicy onConflict,
                                 const QByteArray &expectedSha256, const BodyReader &body) override;
    std::optional<QString> uploadPath(const QByteArray &id) override;

    FolderUsage usage(const QString &folder, bool withFinishedBytes) override;
    // statvfs() of the storage folder: a few microseconds.
    StorageSpace space() override;
    // UploadSweeper over the uploads folder; temporary files go after UploadSweeper's default.
    SweepReport sweepExpired(std::chrono::seconds expireAfter,
                             std::chrono::system_clock::time_point now) override;

private:
    UploadFiles filesOf(const QByteArray &id) const;
    static PrefixHasher::Upload prefixUpload(const UploadFiles &files, const UploadSpec &spec);
    // SHA-256 of the whole .part: the cached prefix (if still valid) plus the rest from disk.
    std::optional<QByteArray> hashPart(const UploadFiles &files, const UploadSpec &spec,
                                       const ChunkRecordFile &records, int partFd);
    qint64 finishedBytesBelow(const QString &folder) const;
    Result<ChunkOutcome> drainAsDuplicate(qint64 index, const BodyReader &body) const;
    Result<FinishedFile> finish(const UploadFiles &files, const UploadSpec &spec, ChunkRecordFile &records,
                                const QByteArray &expectedSha256);

    QString m_storageFolder;
    QByteArray m_root;          // the storage folder, native encoding
    QByteArray m_uploads;       // <root>/.multilane/uploads
    DirectorySync m_folderSync; // before m_placer, which uses it
    FilePlacer m_placer;
    PrefixHasher m_prefixes;
    WriteLockStripes m_writeLocks; // chunk writers of one upload take turns
};

} // namespace multilane
