#pragma once

#include "ChunkLayout.h"

#include <QtGlobal>

namespace multilane {

// Byte range of one chunk of a file.
struct ChunkRange {
    int index = 0;
    qint64 offset = 0;
    qint64 length = 0;
};

// A file's chunks as the client plans them: the protocol's arithmetic (ChunkLayout, shared with
// the receiver) with the client's own policy (the smallest and the default chunk size).
class ChunkPlanner {
public:
    static constexpr qint64 MinChunkSize = 64 * 1024;
    static constexpr qint64 MaxChunkSize = ChunkLayout::MaxChunkSize;
    static constexpr qint64 DefaultChunkSize = 8 * 1024 * 1024;

    ChunkPlanner(qint64 fileSize, qint64 chunkSize);

    qint64 fileSize() const { return m_layout.fileSize(); }
    qint64 chunkSize() const { return m_layout.chunkSize(); }
    int chunkCount() const { return int(m_layout.chunkCount()); }
    ChunkRange chunk(int index) const;
    // A file that fits in one chunk goes in a single whole-file request.
    bool isSingleRequest() const { return m_layout.fitsInOneChunk(); }

private:
    ChunkLayout m_layout;
};

} // namespace multilane
