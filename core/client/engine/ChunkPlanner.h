#pragma once

#include <QtGlobal>

namespace multilane {

// Byte range of one chunk of a file.
struct ChunkRange {
    int index = 0;
    qint64 offset = 0;
    qint64 length = 0;
};

// Splits a file into fixed-size chunks (the last one shorter); the protocol's arithmetic.
class ChunkPlanner {
public:
    static constexpr qint64 MinChunkSize = 64 * 1024;
    static constexpr qint64 MaxChunkSize = 1024LL * 1024 * 1024;
    static constexpr qint64 DefaultChunkSize = 8 * 1024 * 1024;

    ChunkPlanner(qint64 fileSize, qint64 chunkSize);

    qint64 fileSize() const { return m_fileSize; }
    qint64 chunkSize() const { return m_chunkSize; }
    int chunkCount() const { return m_chunkCount; }
    ChunkRange chunk(int index) const;
    // A file that fits in one chunk goes in a single whole-file request.
    bool isSingleRequest() const { return m_fileSize <= m_chunkSize; }

private:
    qint64 m_fileSize;
    qint64 m_chunkSize;
    int m_chunkCount;
};

} // namespace multilane
