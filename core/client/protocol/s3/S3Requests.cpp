#include "S3Requests.h"

#include "S3Etag.h"
#include "S3UriEncoding.h"

#include <QXmlStreamWriter>
#include <utility>

namespace multilane {

namespace {

// Query strings are built already encoded (SigV4's encoding), so the URL sent is the one signed.
QString queryItem(const char *name, const QString &value)
{
    return QLatin1String(name) + QLatin1Char('=') +
           QString::fromLatin1(S3UriEncoding::encodeQueryValue(value));
}

QUrl withQuery(QUrl url, const QStringList &items)
{
    url.setQuery(items.join(QLatin1Char('&')), QUrl::StrictMode);
    return url;
}

QByteArray completionXml(const QList<S3CompletedPart> &parts)
{
    QByteArray xml;
    QXmlStreamWriter writer(&xml);
    writer.writeStartDocument();
    writer.writeDefaultNamespace(QStringLiteral("http://s3.amazonaws.com/doc/2006-03-01/"));
    writer.writeStartElement(QStringLiteral("CompleteMultipartUpload"));
    for (const S3CompletedPart &part : parts) {
        writer.writeStartElement(QStringLiteral("Part"));
        writer.writeTextElement(QStringLiteral("PartNumber"), QString::number(part.partNumber));
        writer.writeTextElement(QStringLiteral("ETag"), QString::fromLatin1(S3Etag::quoted(part.etag)));
        writer.writeEndElement();
    }
    writer.writeEndElement();
    writer.writeEndDocument();
    return xml;
}

} // namespace

S3Requests::S3Requests(S3Target target, S3Credentials credentials, S3Clock clock)
    : m_target(std::move(target))
    , m_signer(std::move(credentials), m_target.region())
    , m_clock(std::move(clock))
{}

QDateTime S3Requests::now() const
{
    const QDateTime local = m_clock ? m_clock() : QDateTime::currentDateTimeUtc();
    return local.addSecs(m_clockOffsetSeconds);
}

void S3Requests::addMetadata(HttpHeaders &headers, const S3ObjectMetadata &metadata)
{
    headers.append({QByteArrayLiteral("Content-Type"), metadata.contentType.isEmpty()
                                                           ? QByteArrayLiteral("application/octet-stream")
                                                           : metadata.contentType});
    if (!metadata.sha256Hex.isEmpty())
        headers.append({QByteArrayLiteral("x-amz-meta-sha256"), metadata.sha256Hex});
}

S3Request S3Requests::finish(const QUrl &endpoint, Draft draft) const
{
    S3Request request;
    request.context.operation = draft.operation;
    request.context.endpointName = S3Target::endpointName(endpoint);
    request.context.bucket = m_target.bucket();
    request.context.key = draft.key;
    request.context.partNumber = draft.partNumber;
    request.method = draft.method;
    request.url = draft.url;
    request.body = std::move(draft.body);
    request.fileRange = draft.fileRange;

    const QByteArray payloadHash =
        request.fileRange ? QByteArray(SigV4Signer::UnsignedPayload) : SigV4Signer::payloadHash(request.body);
    const SigV4Signature signature =
        m_signer.sign(request.method, request.url, draft.headers, payloadHash, now());
    request.headers = draft.headers + signature.headersToAdd;
    // A fixed length, never chunked transfer encoding: S3 refuses bodies of unknown size.
    if (request.method == "PUT" || request.method == "POST")
        request.headers.append(
            {QByteArrayLiteral("Content-Length"), QByteArray::number(request.contentLength())});
    return request;
}

S3Request S3Requests::listBuckets(const QUrl &endpoint) const
{
    QUrl url = endpoint;
    url.setPath(QStringLiteral("/"));
    return finish(endpoint, {S3Operation::ListBuckets, "GET", url, {}, {}, {}, {}});
}

S3Request S3Requests::headBucket(const QUrl &endpoint) const
{
    return finish(endpoint, {S3Operation::HeadBucket, "HEAD", m_target.bucketUrl(endpoint), {}, {}, {}, {}});
}

S3Request S3Requests::createMultipartUpload(const QUrl &endpoint, const QString &key,
                                            const S3ObjectMetadata &metadata) const
{
    Draft draft{S3Operation::CreateMultipartUpload,
                "POST",
                withQuery(m_target.objectUrl(endpoint, key), {QStringLiteral("uploads=")}),
                key,
                {},
                {},
                {}};
    addMetadata(draft.headers, metadata);
    return finish(endpoint, std::move(draft));
}

S3Request S3Requests::uploadPart(const QUrl &endpoint, const QString &key, const QString &uploadId,
                                 int partNumber, S3FileRange range, const QByteArray &md5) const
{
    const QUrl url =
        withQuery(m_target.objectUrl(endpoint, key),
                  {queryItem("partNumber", QString::number(partNumber)), queryItem("uploadId", uploadId)});
    Draft draft{S3Operation::UploadPart,           "PUT", url,   key,
                {{"Content-MD5", md5.toBase64()}}, {},    range, partNumber};
    return finish(endpoint, std::move(draft));
}

S3Request S3Requests::completeMultipartUpload(const QUrl &endpoint, const QString &key,
                                              const QString &uploadId,
                                              const QList<S3CompletedPart> &parts) const
{
    const QUrl url = withQuery(m_target.objectUrl(endpoint, key), {queryItem("uploadId", uploadId)});
    return finish(endpoint, {S3Operation::CompleteMultipartUpload,
                             "POST",
                             url,
                             key,
                             {{"Content-Type", "application/xml"}},
                             completionXml(parts),
                             {}});
}

S3Request S3Requests::abortMultipartUpload(const QUrl &endpoint, const QString &key,
                                           const QString &uploadId) const
{
    const QUrl url = withQuery(m_target.objectUrl(endpoint, key), {queryItem("uploadId", uploadId)});
    return finish(endpoint, {S3Operation::AbortMultipartUpload, "DELETE", url, key, {}, {}, {}});
}

S3Request S3Requests::listParts(const QUrl &endpoint, const QString &key, const QString &uploadId,
                                int partNumberMarker, int maxParts) const
{
    QStringList query{queryItem("max-parts", QString::number(maxParts)), queryItem("uploadId", uploadId)};
    if (partNumberMarker > 0)
        query.append(queryItem("part-number-marker", QString::number(partNumberMarker)));
    const QUrl url = withQuery(m_target.objectUrl(endpoint, key), query);
    return finish(endpoint, {S3Operation::ListParts, "GET", url, key, {}, {}, {}});
}

S3Request S3Requests::listMultipartUploads(const QUrl &endpoint, const QString &prefix,
                                           const QString &keyMarker, const QString &uploadIdMarker,
                                           int maxUploads) const
{
    QStringList query{QStringLiteral("uploads="), queryItem("max-uploads", QString::number(maxUploads)),
                      queryItem("prefix", prefix)};
    if (!keyMarker.isEmpty())
        query.append(queryItem("key-marker", keyMarker));
    if (!uploadIdMarker.isEmpty())
        query.append(queryItem("upload-id-marker", uploadIdMarker));
    const QUrl url = withQuery(m_target.bucketUrl(endpoint), query);
    return finish(endpoint, {S3Operation::ListMultipartUploads, "GET", url, prefix, {}, {}, {}});
}

S3Request S3Requests::listObjects(const QUrl &endpoint, const QString &prefix, int maxKeys) const
{
    const QUrl url = withQuery(m_target.bucketUrl(endpoint), {queryItem("list-type", QStringLiteral("2")),
                                                              queryItem("max-keys", QString::number(maxKeys)),
                                                              queryItem("prefix", prefix)});
    return finish(endpoint, {S3Operation::ListObjects, "GET", url, prefix, {}, {}, {}});
}

S3Request S3Requests::putObject(const QUrl &endpoint, const QString &key, S3FileRange range,
                                const QByteArray &md5, const S3ObjectMetadata &metadata,
                                bool onlyIfAbsent) const
{
    Draft draft{S3Operation::PutObject,
                "PUT",
                m_target.objectUrl(endpoint, key),
                key,
                {{"Content-MD5", md5.toBase64()}},
                {},
                range};
    if (onlyIfAbsent)
        draft.headers.append(HttpHeader{"If-None-Match", "*"});
    addMetadata(draft.headers, metadata);
    return finish(endpoint, std::move(draft));
}

S3Request S3Requests::headObject(const QUrl &endpoint, const QString &key) const
{
    return finish(endpoint,
                  {S3Operation::HeadObject, "HEAD", m_target.objectUrl(endpoint, key), key, {}, {}, {}});
}

S3Request S3Requests::getObject(const QUrl &endpoint, const QString &key) const
{
    return finish(endpoint,
                  {S3Operation::GetObject, "GET", m_target.objectUrl(endpoint, key), key, {}, {}, {}});
}

S3Request S3Requests::copyObjectReplacingMetadata(const QUrl &endpoint, const QString &key,
                                                  const S3ObjectMetadata &metadata,
                                                  const QByteArray &ifMatchEtag) const
{
    // x-amz-copy-source is bucket/key, URL-encoded like a path.
    const QByteArray source =
        S3UriEncoding::encode(m_target.bucket().toUtf8(), false) + '/' + S3UriEncoding::encodeKey(key);
    Draft draft{S3Operation::CopyObject,
                "PUT",
                m_target.objectUrl(endpoint, key),
                key,
                {{"x-amz-copy-source", source}, {"x-amz-metadata-directive", "REPLACE"}},
                {},
                {}};
    if (!ifMatchEtag.isEmpty())
        draft.headers.append({"x-amz-copy-source-if-match", S3Etag::quoted(ifMatchEtag)});
    addMetadata(draft.headers, metadata);
    return finish(endpoint, std::move(draft));
}

} // namespace multilane
