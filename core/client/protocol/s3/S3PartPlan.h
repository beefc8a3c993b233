#pragma once

#include "S3Result.h"

#include <QtGlobal>

namespace multilane {

// How one file is cut into S3 parts. S3's limits: parts of 5 MiB to 5 GiB (the last may be
// smaller), at most 10,000 of them, objects up to 5 TiB. The requested part size is raised to
// 5 MiB, then grown in whole MiB until the file fits in 10,000 parts. A file smaller than the
// part size goes in one PutObject instead.
class S3PartPlan {
public:
    static constexpr qint64 MiB = qint64(1) << 20;
    static constexpr qint64 MinPartSize = 5 * MiB;
    static constexpr qint64 MaxPartSize = qint64(5) << 30;
    static constexpr int MaxParts = 10000;
    static constexpr qint64 MaxObjectSize = qint64(5) << 40;
    static constexpr qint64 MaxPutObjectSize = qint64(5) << 30;

    static S3Result<S3PartPlan> forFile(qint64 fileSize, qint64 requestedPartSize);

    bool isSinglePut() const { return m_singlePut; }
    qint64 fileSize() const { return m_fileSize; }
    qint64 partSize() const { return m_partSize; }
    int partCount() const { return m_partCount; } // 1 for a single put
    // Parts are numbered from 1, as S3 numbers them.
    qint64 partOffset(int partNumber) const;
    qint64 partLength(int partNumber) const;

private:
    qint64 m_fileSize = 0;
    qint64 m_partSize = 0;
    int m_partCount = 0;
    bool m_singlePut = false;
};

} // namespace multilane
