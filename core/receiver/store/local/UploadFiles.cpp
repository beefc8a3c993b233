#include "UploadFiles.h"

#include "ChunkLayout.h"
#include "ChunkRecordFile.h"
#include "DoneRecord.h"
#include "FileOps.h"
#include "PartWriter.h"
#include "StorageError.h"
#include "UploadId.h"
#include "UploadRecord.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace multilane {

UploadFiles::UploadFiles(const QByteArray &storageRoot, const QByteArray &uploadsFolder, const QByteArray &id)
    : m_root(storageRoot)
    , m_uploads(uploadsFolder)
    , m_id(id)
{}

ProtocolError UploadFiles::noSuchUpload() const
{
    return ProtocolError::make(ProtocolErrorCode::NoSuchUpload,
                               QStringLiteral("upload %1 does not exist (never created, aborted or expired); "
                                              "create it again with POST /v1/uploads")
                                   .arg(QString::fromLatin1(m_id)));
}

Result<UploadSpec> UploadFiles::readRecord() const
{
    if (!UploadId::isValid(m_id)) // never let a malformed id near a file name
        return noSuchUpload();
    const auto content = FileOps::readSmallFile(path(".json"));
    if (!content)
        return noSuchUpload();
    const auto spec = UploadRecord::decode(*content);
    if (!spec)
        return ProtocolError::make(ProtocolErrorCode::StorageError,
                                   QStringLiteral("the record of upload %1 is damaged; abort the upload and "
                                                  "send the file again")
                                       .arg(QString::fromLatin1(m_id)));
    return *spec;
}

std::optional<FinishedFile> UploadFiles::readDone() const
{
    if (!UploadId::isValid(m_id))
        return std::nullopt;
    const auto content = FileOps::readSmallFile(path(".done"));
    const auto done = content ? DoneRecord::decode(*content) : std::nullopt;
    if (!done)
        return std::nullopt;
    // Once the user removed or replaced the file, the old result no longer answers for it.
    if (FileOps::regularFileSize(m_root + '/' + done->file.path.toUtf8()) != done->size)
        return std::nullopt;
    return done->file;
}

int UploadFiles::ensureDataFiles(const UploadSpec &spec) const
{
    const UniqueFd part(::open(path(".part").constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (!part.isValid())
        return errno;
    struct stat info {};
    if (::fstat(part.get(), &info) != 0)
        return errno;
    if (info.st_size > spec.size && ::ftruncate(part.get(), spec.size) != 0)
        return errno;
    if (info.st_size < spec.size) {
        if (const int error = PartWriter::presize(part.get(), spec.size); error != 0)
            return error;
    }
    return ChunkRecordFile::ensure(path(".chunks"), ChunkLayout(spec.size, spec.chunkSize).chunkCount());
}

Result<UploadState> UploadFiles::state(const UploadSpec &spec, const ChunkRecordFile &records) const
{
    UploadState state;
    state.id = m_id;
    state.path = spec.path;
    state.size = spec.size;
    state.chunkSize = spec.chunkSize;
    state.chunkCount = ChunkLayout(spec.size, spec.chunkSize).chunkCount();
    state.onConflict = spec.onConflict;
    const auto held = records.heldChunks(state.chunkCount);
    if (!held)
        return StorageError::fromErrno(
            errno,
            QStringLiteral("cannot read the chunk records of upload %1").arg(QString::fromLatin1(m_id)));
    state.received = held->indexes;
    state.receivedHashes = held->hashes;
    return state;
}

} // namespace multilane
