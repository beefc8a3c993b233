#include "S3Request.h"

namespace multilane {

QByteArray headerValue(const HttpHeaders &headers, const QByteArray &name)
{
    for (const HttpHeader &header : headers) {
        if (header.name.compare(name, Qt::CaseInsensitive) == 0)
            return header.value;
    }
    return {};
}

QString operationName(S3Operation operation)
{
    switch (operation) {
    case S3Operation::ListBuckets:
        return QStringLiteral("ListBuckets");
    case S3Operation::HeadBucket:
        return QStringLiteral("HeadBucket");
    case S3Operation::CreateMultipartUpload:
        return QStringLiteral("CreateMultipartUpload");
    case S3Operation::UploadPart:
        return QStringLiteral("UploadPart");
    case S3Operation::CompleteMultipartUpload:
        return QStringLiteral("CompleteMultipartUpload");
    case S3Operation::AbortMultipartUpload:
        return QStringLiteral("AbortMultipartUpload");
    case S3Operation::ListParts:
        return QStringLiteral("ListParts");
    case S3Operation::ListMultipartUploads:
        return QStringLiteral("ListMultipartUploads");
    case S3Operation::ListObjects:
        return QStringLiteral("ListObjectsV2");
    case S3Operation::PutObject:
        return QStringLiteral("PutObject");
    case S3Operation::HeadObject:
        return QStringLiteral("HeadObject");
    case S3Operation::GetObject:
        return QStringLiteral("GetObject");
    case S3Operation::CopyObject:
        break;
    }
    return QStringLiteral("CopyObject");
}

} // namespace multilane
