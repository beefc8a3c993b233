#include "S3PartPlan.h"

#include "ByteSize.h"

#include <algorithm>

namespace multilane {

S3Result<S3PartPlan> S3PartPlan::forFile(qint64 fileSize, qint64 requestedPartSize)
{
    if (fileSize < 0)
        return S3Failure::invalidInput(QStringLiteral("a file size cannot be negative"));
    if (fileSize > MaxObjectSize)
        return S3Failure::invalidInput(QStringLiteral("the file is %1; an S3 object can hold at most 5 TiB")
                                           .arg(ByteSize::format(fileSize)));
    S3PartPlan plan;
    plan.m_fileSize = fileSize;
    qint64 partSize = std::clamp(requestedPartSize, MinPartSize, MaxPartSize);
    const qint64 smallestThatFits = (fileSize + MaxParts - 1) / MaxParts;
    if (partSize < smallestThatFits)
        partSize = (smallestThatFits + MiB - 1) / MiB * MiB;
    plan.m_partSize = partSize;
    plan.m_singlePut = fileSize < partSize;
    plan.m_partCount = plan.m_singlePut ? 1 : int((fileSize + partSize - 1) / partSize);
    return plan;
}

qint64 S3PartPlan::partOffset(int partNumber) const
{
    return m_singlePut ? 0 : qint64(partNumber - 1) * m_partSize;
}

qint64 S3PartPlan::partLength(int partNumber) const
{
    if (m_singlePut)
        return m_fileSize;
    return std::min(m_partSize, m_fileSize - partOffset(partNumber));
}

} // namespace multilane
