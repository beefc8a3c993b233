#include "ChunkPlanner.h"

namespace multilane {

ChunkPlanner::ChunkPlanner(qint64 fileSize, qint64 chunkSize)
    : m_layout(fileSize, chunkSize)
{}

ChunkRange ChunkPlanner::chunk(int index) const
{
    Q_ASSERT(m_layout.contains(index));
    return {index, m_layout.offset(index), m_layout.length(index)};
}

} // namespace multilane
