#pragma once

#include "Result.h"
#include "UploadTypes.h"

#include <QByteArray>
#include <optional>

namespace multilane {

class ChunkRecordFile;

// The files of one upload in <storage>/.multilane/uploads: <id>.json (what the first create
// fixed), .part (the data), .chunks (per-chunk records) and .done (where the finished file went).
class UploadFiles {
public:
    UploadFiles(const QByteArray &storageRoot, const QByteArray &uploadsFolder, const QByteArray &id);

    const QByteArray &id() const { return m_id; }
    QByteArray path(const char *suffix) const { return m_uploads + '/' + m_id + suffix; }

    Result<UploadSpec> readRecord() const;
    // The finished result, if this upload completed and its file is still there.
    std::optional<FinishedFile> readDone() const;
    // Creates the .part (sized, space reserved) and .chunks files if missing; 0 or errno.
    int ensureDataFiles(const UploadSpec &spec) const;
    Result<UploadState> state(const UploadSpec &spec, const ChunkRecordFile &records) const;
    ProtocolError noSuchUpload() const;

private:
    QByteArray m_root;
    QByteArray m_uploads;
    QByteArray m_id;
};

} // namespace multilane
