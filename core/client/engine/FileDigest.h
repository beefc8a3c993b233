#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <cstdint>
#include <optional>

namespace multilane {

// One read of a file gives both its SHA-256 (what the receiver checks at complete) and the XXH3
// of each chunk (what the receiver stored per chunk). XXH3 adds ~5 % to the SHA-256 pass, so a
// resuming upload can check every chunk the receiver already holds without reading anything twice.
struct FileDigest {
    QByteArray sha256Hex;
    qint64 chunkSize = 0; // 0: no chunk hashes were asked for
    QList<std::uint64_t> chunkHashes;

    // nullopt when the file cannot be read to the end.
    static std::optional<FileDigest> ofFile(const QString &path, qint64 chunkSize);
};

} // namespace multilane
