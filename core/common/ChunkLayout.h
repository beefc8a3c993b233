#pragma once

#include <QString>
#include <QtGlobal>
#include <algorithm>
#include <optional>

namespace multilane {

// How protocol v1 cuts a file into chunks (docs/protocol.md, "Conventions"): chunk i covers bytes
// [i*chunkSize, min((i+1)*chunkSize, fileSize)), so every chunk but the last has chunkSize bytes,
// and an empty file has no chunks. One definition for the client that sends them and the receiver
// that checks them, so the two never disagree on a chunk's length.
class ChunkLayout {
public:
    // The limits a create must respect (400 bad_request otherwise).
    static constexpr qint64 MaxChunkSize = qint64(1) << 30;  // 1 GiB
    static constexpr qint64 MaxChunkCount = qint64(1) << 20; // 1,048,576 chunks

    // Sizes below zero count as zero; a chunk size below one as one (so nothing divides by zero).
    constexpr ChunkLayout(qint64 fileSize, qint64 chunkSize)
        : m_fileSize(std::max<qint64>(0, fileSize))
        , m_chunkSize(std::max<qint64>(1, chunkSize))
    {}

    constexpr qint64 fileSize() const { return m_fileSize; }
    constexpr qint64 chunkSize() const { return m_chunkSize; }
    constexpr qint64 chunkCount() const { return m_fileSize == 0 ? 0 : (m_fileSize - 1) / m_chunkSize + 1; }
    constexpr bool contains(qint64 index) const { return index >= 0 && index < chunkCount(); }
    // Where chunk `index` starts, and how many bytes it has (0 for an index outside the file).
    constexpr qint64 offset(qint64 index) const { return index * m_chunkSize; }
    constexpr qint64 length(qint64 index) const
    {
        return contains(index) ? std::min(m_chunkSize, m_fileSize - offset(index)) : 0;
    }
    // A file no bigger than one chunk can go in a single whole-file request.
    constexpr bool fitsInOneChunk() const { return m_fileSize <= m_chunkSize; }

    // Why a create with these sizes breaks the protocol's limits (a sentence for the error
    // message), or nullopt when it does not. Takes the raw sizes, before any clamping.
    static std::optional<QString> problem(qint64 fileSize, qint64 chunkSize);

private:
    qint64 m_fileSize;
    qint64 m_chunkSize;
};

} // namespace multilane
