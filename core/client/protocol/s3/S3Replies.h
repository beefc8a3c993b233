#pragma once

#include "S3Reply.h"
#include "S3Request.h"
#include "S3Result.h"

#include <QDateTime>
#include <optional>

namespace multilane {

struct S3InitiatedUpload {
    QString bucket;
    QString key;
    QString uploadId;
};

struct S3CompletedObject {
    QString key;
    QByteArray etag; // normalized; empty when the server sent none (Ceph 16): HEAD the object
    QString location;
};

struct S3PartInfo {
    int partNumber = 0;
    QByteArray etag; // normalized
    qint64 size = 0;
    QDateTime lastModified;
};

struct S3PartsPage {
    QList<S3PartInfo> parts;
    bool isTruncated = false;
    int nextPartNumberMarker = 0; // where the next page starts when truncated
};

struct S3OpenUpload {
    QString key;
    QString uploadId;
    QDateTime initiated;
};

struct S3UploadsPage {
    QList<S3OpenUpload> uploads;
    bool isTruncated = false;
    QString nextKeyMarker;
    QString nextUploadIdMarker;
};

struct S3ObjectHead {
    qint64 size = 0;
    QByteArray etag;      // normalized
    QByteArray sha256Hex; // x-amz-meta-sha256; empty when the object has none
    QDateTime lastModified;
};

// Reads each operation's answer into a typed value, or an S3Failure. Every reader takes the
// request's context (for messages and for the operation-specific quirks) and the reply.
namespace S3Replies {

S3Result<S3InitiatedUpload> createMultipartUpload(const S3RequestContext &context, const S3Reply &reply);
// The part's ETag (normalized).
S3Result<QByteArray> uploadPart(const S3RequestContext &context, const S3Reply &reply);
// A 200 whose body is an <Error> is a failure (S3 may fail a Complete after answering 200).
S3Result<S3CompletedObject> completeMultipartUpload(const S3RequestContext &context, const S3Reply &reply);
S3Result<S3Done> abortMultipartUpload(const S3RequestContext &context, const S3Reply &reply);
S3Result<S3PartsPage> listParts(const S3RequestContext &context, const S3Reply &reply);
S3Result<S3UploadsPage> listMultipartUploads(const S3RequestContext &context, const S3Reply &reply);
// The keys of a ListObjectsV2 page.
S3Result<QStringList> listObjects(const S3RequestContext &context, const S3Reply &reply);
S3Result<QByteArray> putObject(const S3RequestContext &context, const S3Reply &reply);
// nullopt: no such object (404).
S3Result<std::optional<S3ObjectHead>> headObject(const S3RequestContext &context, const S3Reply &reply);
// The copy's new ETag (normalized); a 200 with an <Error> body is a failure.
S3Result<QByteArray> copyObject(const S3RequestContext &context, const S3Reply &reply);
// HeadBucket or ListBuckets: reachable, keys accepted.
S3Result<S3Done> health(const S3RequestContext &context, const S3Reply &reply);

// The most recently initiated upload whose key is exactly `key` (ListMultipartUploads matches
// by prefix, so "a.txt" also lists "a.txt.bak").
std::optional<S3OpenUpload> newestUploadFor(const QList<S3OpenUpload> &uploads, const QString &key);

} // namespace S3Replies
} // namespace multilane
