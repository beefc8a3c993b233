#include "ChunkLayout.h"

namespace multilane {

std::optional<QString> ChunkLayout::problem(qint64 fileSize, qint64 chunkSize)
{
    if (fileSize < 0)
        return QStringLiteral("\"size\" must not be negative");
    if (chunkSize < 1 || chunkSize > MaxChunkSize)
        return QStringLiteral("\"chunkSize\" must be between 1 byte and 1 GiB");
    if (ChunkLayout(fileSize, chunkSize).chunkCount() > MaxChunkCount)
        return QStringLiteral("%1 bytes in chunks of %2 would be more than %3 chunks; use a larger chunkSize")
            .arg(fileSize)
            .arg(chunkSize)
            .arg(MaxChunkCount);
    return std::nullopt;
}

} // namespace multilane
