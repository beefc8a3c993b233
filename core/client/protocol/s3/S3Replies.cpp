#include "S3Replies.h"

#include "HttpDate.h"
#include "S3Etag.h"
#include "S3FailureClassifier.h"
#include "S3Xml.h"

namespace multilane::S3Replies {

namespace {

bool isSuccess(const S3Reply &reply)
{
    return reply.httpStatus >= 200 && reply.httpStatus < 300;
}

// The answer's root element when it is `rootName`; a failure otherwise (an <Error> under a 200
// becomes that error, anything else an unreadable answer).
S3Result<S3XmlElement> readDocument(const S3RequestContext &context, const S3Reply &reply,
                                    const QString &rootName)
{
    if (!isSuccess(reply))
        return S3FailureClassifier::classify(context, reply);
    QString why;
    std::optional<S3XmlElement> root = S3Xml::parse(reply.body, &why);
    if (!root)
        return S3FailureClassifier::unreadableAnswer(context, reply, why);
    if (root->name == QLatin1String("Error"))
        return S3FailureClassifier::classify(context, reply);
    if (root->name != rootName)
        return S3FailureClassifier::unreadableAnswer(
            context, reply, QStringLiteral("<%1> where <%2> was expected").arg(root->name, rootName));
    return std::move(*root);
}

bool isTrue(const QString &text)
{
    return text.trimmed().compare(QLatin1String("true"), Qt::CaseInsensitive) == 0;
}

QDateTime isoTime(const QString &text)
{
    return QDateTime::fromString(text.trimmed(), Qt::ISODateWithMs);
}

std::optional<S3PartInfo> partFrom(const S3XmlElement &element)
{
    bool numberOk = false;
    bool sizeOk = false;
    S3PartInfo part;
    part.partNumber = element.childText(QStringLiteral("PartNumber")).trimmed().toInt(&numberOk);
    part.size = element.childText(QStringLiteral("Size")).trimmed().toLongLong(&sizeOk);
    part.etag = S3Etag::normalized(element.childText(QStringLiteral("ETag")).toLatin1());
    part.lastModified = isoTime(element.childText(QStringLiteral("LastModified")));
    if (!numberOk || !sizeOk || part.partNumber < 1 || part.size < 0)
        return std::nullopt;
    return part;
}

// An answer that only carries an ETag header (UploadPart, PutObject).
S3Result<QByteArray> etagHeader(const S3RequestContext &context, const S3Reply &reply)
{
    if (!isSuccess(reply))
        return S3FailureClassifier::classify(context, reply);
    const QByteArray etag = S3Etag::normalized(reply.header("ETag"));
    if (etag.isEmpty())
        return S3FailureClassifier::unreadableAnswer(context, reply, QStringLiteral("no ETag header"));
    return etag;
}

} // namespace

S3Result<S3InitiatedUpload> createMultipartUpload(const S3RequestContext &context, const S3Reply &reply)
{
    const auto root = readDocument(context, reply, QStringLiteral("InitiateMultipartUploadResult"));
    if (!root)
        return root.failure();
    S3InitiatedUpload upload;
    upload.bucket = root.value().childText(QStringLiteral("Bucket"));
    upload.key = root.value().childText(QStringLiteral("Key"));
    upload.uploadId = root.value().childText(QStringLiteral("UploadId")).trimmed();
    if (upload.uploadId.isEmpty())
        return S3FailureClassifier::unreadableAnswer(context, reply, QStringLiteral("no UploadId"));
    return upload;
}

S3Result<QByteArray> uploadPart(const S3RequestContext &context, const S3Reply &reply)
{
    return etagHeader(context, reply);
}

S3Result<QByteArray> putObject(const S3RequestContext &context, const S3Reply &reply)
{
    return etagHeader(context, reply);
}

S3Result<S3CompletedObject> completeMultipartUpload(const S3RequestContext &context, const S3Reply &reply)
{
    const auto root = readDocument(context, reply, QStringLiteral("CompleteMultipartUploadResult"));
    if (!root)
        return root.failure();
    S3CompletedObject object;
    object.key = root.value().childText(QStringLiteral("Key"));
    object.location = root.value().childText(QStringLiteral("Location")).trimmed();
    object.etag = S3Etag::normalized(root.value().childText(QStringLiteral("ETag")).toLatin1());
    return object;
}

S3Result<S3Done> abortMultipartUpload(const S3RequestContext &context, const S3Reply &reply)
{
    return health(context, reply);
}

S3Result<S3PartsPage> listParts(const S3RequestContext &context, const S3Reply &reply)
{
    const auto root = readDocument(context, reply, QStringLiteral("ListPartsResult"));
    if (!root)
        return root.failure();
    S3PartsPage page;
    page.isTruncated = isTrue(root.value().childText(QStringLiteral("IsTruncated")));
    page.nextPartNumberMarker =
        root.value().childText(QStringLiteral("NextPartNumberMarker")).trimmed().toInt();
    for (const S3XmlElement *element : root.value().childrenNamed(QStringLiteral("Part"))) {
        const std::optional<S3PartInfo> part = partFrom(*element);
        if (!part)
            return S3FailureClassifier::unreadableAnswer(context, reply,
                                                         QStringLiteral("a <Part> without a "
                                                                        "number or size"));
        page.parts.append(*part);
    }
    // A truncated page must say where the next starts, or paging would never end.
    if (page.isTruncated && page.nextPartNumberMarker <= 0)
        return S3FailureClassifier::unreadableAnswer(
            context, reply, QStringLiteral("truncated without NextPartNumberMarker"));
    return page;
}

S3Result<S3UploadsPage> listMultipartUploads(const S3RequestContext &context, const S3Reply &reply)
{
    const auto root = readDocument(context, reply, QStringLiteral("ListMultipartUploadsResult"));
    if (!root)
        return root.failure();
    S3UploadsPage page;
    page.isTruncated = isTrue(root.value().childText(QStringLiteral("IsTruncated")));
    page.nextKeyMarker = root.value().childText(QStringLiteral("NextKeyMarker"));
    page.nextUploadIdMarker = root.value().childText(QStringLiteral("NextUploadIdMarker")).trimmed();
    for (const S3XmlElement *element : root.value().childrenNamed(QStringLiteral("Upload"))) {
        S3OpenUpload upload;
        upload.key = element->childText(QStringLiteral("Key"));
        upload.uploadId = element->childText(QStringLiteral("UploadId")).trimmed();
        upload.initiated = isoTime(element->childText(QStringLiteral("Initiated")));
        if (upload.uploadId.isEmpty())
            return S3FailureClassifier::unreadableAnswer(context, reply,
                                                         QStringLiteral("an <Upload> without "
                                                                        "an UploadId"));
        page.uploads.append(upload);
    }
    if (page.isTruncated && page.nextKeyMarker.isEmpty() && page.nextUploadIdMarker.isEmpty())
        return S3FailureClassifier::unreadableAnswer(context, reply,
                                                     QStringLiteral("truncated without a next marker"));
    return page;
}

S3Result<QStringList> listObjects(const S3RequestContext &context, const S3Reply &reply)
{
    const auto root = readDocument(context, reply, QStringLiteral("ListBucketResult"));
    if (!root)
        return root.failure();
    QStringList keys;
    for (const S3XmlElement *element : root.value().childrenNamed(QStringLiteral("Contents")))
        keys.append(element->childText(QStringLiteral("Key")));
    return keys;
}

S3Result<std::optional<S3ObjectHead>> headObject(const S3RequestContext &context, const S3Reply &reply)
{
    if (reply.httpStatus == 404)
        return std::optional<S3ObjectHead>();
    if (!isSuccess(reply))
        return S3FailureClassifier::classify(context, reply);
    S3ObjectHead head;
    bool sizeOk = false;
    head.size = reply.header("Content-Length").trimmed().toLongLong(&sizeOk);
    head.etag = S3Etag::normalized(reply.header("ETag"));
    head.sha256Hex = reply.header("x-amz-meta-sha256").trimmed().toLower();
    head.lastModified = HttpDate::parse(reply.header("Last-Modified"));
    if (!sizeOk)
        return S3FailureClassifier::unreadableAnswer(context, reply, QStringLiteral("no Content-Length"));
    return std::optional<S3ObjectHead>(head);
}

S3Result<QByteArray> copyObject(const S3RequestContext &context, const S3Reply &reply)
{
    const auto root = readDocument(context, reply, QStringLiteral("CopyObjectResult"));
    if (!root)
        return root.failure();
    return S3Etag::normalized(root.value().childText(QStringLiteral("ETag")).toLatin1());
}

S3Result<S3Done> health(const S3RequestContext &context, const S3Reply &reply)
{
    if (!isSuccess(reply))
        return S3FailureClassifier::classify(context, reply);
    return S3Done{};
}

std::optional<S3OpenUpload> newestUploadFor(const QList<S3OpenUpload> &uploads, const QString &key)
{
    std::optional<S3OpenUpload> newest;
    for (const S3OpenUpload &upload : uploads) {
        if (upload.key != key)
            continue;
        if (!newest || upload.initiated > newest->initiated)
            newest = upload;
    }
    return newest;
}

} // namespace multilane::S3Replies
