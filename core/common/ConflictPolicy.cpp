#include "ConflictPolicy.h"

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

} // namespace multilane
