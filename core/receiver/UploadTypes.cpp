#include "UploadTypes.h"

#include <algorithm>

namespace multilane {

QByteArray conflictPolicyName(ConflictPolicy policy)
{
    switch (policy) {
    case ConflictPolicy::Rename:
        return QByteArrayLiteral("rename");
    case ConflictPolicy::Overwrite:
        return QByteArrayLiteral("overwrite");
    case ConflictPolicy::Skip:
        return QByteArrayLiteral("skip");
    case ConflictPolicy::Fail:
        return QByteArrayLiteral("fail");
    }
    return QByteArrayLiteral("rename");
}

std::optional<ConflictPolicy> conflictPolicyFromName(const QByteArray &name)
{
    for (const ConflictPolicy policy :
         {ConflictPolicy::Rename, ConflictPolicy::Overwrite, ConflictPolicy::Skip, ConflictPolicy::Fail}) {
        if (conflictPolicyName(policy) == name)
            return policy;
    }
    return std::nullopt;
}

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
