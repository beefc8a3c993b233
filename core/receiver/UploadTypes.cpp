#include "UploadTypes.h"

#include <algorithm>

namespace multilane {

qint64 chunkCountFor(qint64 size, qint64 chunkSize)
{
    if (size <= 0 || chunkSize <= 0)
        return 0;
    return (size - 1) / chunkSize + 1;
}

qint64 chunkLength(qint64 size, qint64 chunkSize, qint64 index)
{
    const qint64 start = index * chunkSize;
    return std::max<qint64>(0, std::min(chunkSize, size - start));
}

} // namespace multilane
