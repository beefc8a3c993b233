#pragma once

#include "ChunkChecksum.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <optional>

namespace multilane {

// One read of a file gives both its SHA-256 (what the receiver checks at complete) and the
// checksum of each chunk in the protocol's kind (what a server stored per chunk): a resuming
// upload checks every chunk a server already holds without reading anything twice. XXH3 adds
// about 5 % to the SHA-256 pass.
struct FileDigest {
    QByteArray sha256Hex;
    qint64 chunkSize = 0;             // 0: no chunk checksums were asked for
    QList<QByteArray> chunkChecksums; // lowercase hex (ChunkChecksum::hex)

    // nullopt when the file cannot be read to the end.
    static std::optional<FileDigest> ofFile(const QString &path, qint64 chunkSize,
                                            ChunkChecksumKind kind = ChunkChecksumKind::Xxh3);
};

} // namespace multilane
