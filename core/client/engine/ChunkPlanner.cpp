#include "ChunkPlanner.h"

#include <algorithm>

namespace multilane {

ChunkPlanner::ChunkPlanner(qint64 fileSize, qint64 chunkSize)
    : m_fileSize(std::max<qint64>(0, fileSize))
    , m_chunkSize(std::max<qint64>(1, chunkSize))
    , m_chunkCount(int((m_fileSize + m_chunkSize - 1) / m_chunkSize))
{}

ChunkRange ChunkPlanner::chunk(int index) const
{
    Q_ASSERT(index >= 0 && index < m_chunkCount);
    const qint64 offset = qint64(index) * m_chunkSize;
    return {index, offset, std::min(m_chunkSize, m_fileSize - offset)};
}

} // namespace multilane
