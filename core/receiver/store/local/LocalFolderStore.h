#pragma once

#include "FilePlacer.h"
#include "PrefixHasher.h"
#include "UploadFiles.h"
#include "UploadStore.h"
#include "UploadSweeper.h"

#include <QString>
#include <atomic>
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

    // Creates the storage folder and its private folder if missing; the error says what to do.
    std::optional<ProtocolError> prepare();
    QString storageFolder() const { return m_storageFolder; }
    PrefixHasher &prefixHasher() { return m_prefixes; }
    // Removes expired uploads, .done records and leftovers (UploadSweeper); one log line each.
    QStringList sweep(const UploadSweeper::Policy &policy, UploadSweeper::Clock::time_point now);
    // Unfinished uploads sweep() expired since this store was made (for /metrics).
    quint64 expiredUploads() const { return m_expiredUploads; }

    Result<CreateOutcome> createUpload(const UploadSpec &spec) override;
    Result<UploadState> findUpload(const QByteArray &id) override;
    Result<ChunkOutcome> writeChunk(const QByteArray &id, qint64 index, qint64 length, quint64 expectedHash,
                                    const BodyReader &body) override;
    Result<FinishedFile> completeUpload(const QByteArray &id, const QByteArray &expectedSha256) override;
    Result<Done> abortUpload(const QByteArray &id) override;
    Result<FinishedFile> putFile(const QString &path, qint64 size, ConflictPolicy onConflict,
                                 const QByteArray &expectedSha256, const BodyReader &body) override;
    FolderUsage usage(const QString &folder, bool withFinishedBytes) override;
    std::optional<QString> uploadPath(const QByteArray &id) override;

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
    QByteArray m_root;    // the storage folder, native encoding
    QByteArray m_uploads; // <root>/.multilane/uploads
    FilePlacer m_placer;
    PrefixHasher m_prefixes;
    std::atomic<quint64> m_expiredUploads = 0;
};

} // namespace multilane
