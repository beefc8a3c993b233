#pragma once

#include <QByteArray>
#include <QCryptographicHash>
#include <QString>
#include <cstdint>
#include <memory>
#include <optional>

namespace multilane {

class ChunkHash;

// How a protocol checksums each chunk: what the engine computes before it sends one, and what a
// held chunk's receipt is compared with.
enum class ChunkChecksumKind {
    Xxh3, // ours: XXH3-64 (~20 GB/s)
    Md5,  // S3: Content-MD5, and a part's ETag
};

// A streaming chunk checksum of either kind, read out as lowercase hex: the form receipts take,
// so comparing a held chunk with the source is comparing two strings.
class ChunkChecksum {
public:
    explicit ChunkChecksum(ChunkChecksumKind kind);
    ~ChunkChecksum();
    ChunkChecksum(const ChunkChecksum &) = delete;
    ChunkChecksum &operator=(const ChunkChecksum &) = delete;

    void reset();
    void addData(const char *data, qint64 length);
    QByteArray hex() const;

    // The checksum of [offset, offset + length) of a file; nullopt when it cannot be read whole.
    static std::optional<QByteArray> ofRange(ChunkChecksumKind kind, const QString &path, qint64 offset,
                                             qint64 length);
    // 16 lowercase hex digits, as the receiver stores and reports an XXH3.
    static QByteArray xxh3Hex(std::uint64_t value);
    // A receipt or checksum as sent by a peer, in the form hex() gives (lowercase, XXH3 zero-padded).
    static QByteArray normalised(ChunkChecksumKind kind, const QByteArray &hex);

private:
    ChunkChecksumKind m_kind;
    std::unique_ptr<ChunkHash> m_xxh3;
    QCryptographicHash m_md5;
};

} // namespace multilane
