#include "S3PartReconciler.h"

#include "S3Etag.h"

namespace multilane::S3PartReconciler {

S3Reconciliation reconcile(const S3PartPlan &plan, const QMap<int, QByteArray> &knownEtags,
                           const QList<S3PartInfo> &serverParts)
{
    QMap<int, S3PartInfo> held;
    for (const S3PartInfo &part : serverParts)
        held.insert(part.partNumber, part);
    S3Reconciliation result;
    for (int number = 1; number <= plan.partCount(); ++number) {
        const auto found = held.constFind(number);
        if (found == held.constEnd() || found->size != plan.partLength(number)) {
            result.toSend.append(number);
            continue;
        }
        const auto known = knownEtags.constFind(number);
        if (known == knownEtags.constEnd())
            result.toVerify.append(number);
        else if (S3Etag::equal(*known, found->etag))
            result.present.append({number, found->etag});
        else
            result.toSend.append(number);
    }
    return result;
}

} // namespace multilane::S3PartReconciler
