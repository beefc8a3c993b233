#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QUrl>
#include <optional>

namespace multilane {

struct HttpHeader {
    QByteArray name;
    QByteArray value;
    friend bool operator==(const HttpHeader &, const HttpHeader &) = default;
};
using HttpHeaders = QList<HttpHeader>;

// The value of the first header of that name (case-insensitive); empty when absent.
QByteArray headerValue(const HttpHeaders &headers, const QByteArray &name);

enum class S3Operation {
    ListBuckets,
    HeadBucket,
    CreateMultipartUpload,
    UploadPart,
    CompleteMultipartUpload,
    AbortMultipartUpload,
    ListParts,
    ListMultipartUploads,
    ListObjects, // ListObjectsV2
    PutObject,
    HeadObject,
    CopyObject,
    GetObject,
};
QString operationName(S3Operation operation);

// What a request was about, kept with it so its reply can be read and explained ("part 3 of
// 'photos/a.jpg' on 127.0.0.1:7480") without the request itself.
struct S3RequestContext {
    S3Operation operation = S3Operation::ListBuckets;
    QString endpointName; // host:port, as people see it
    QString bucket;
    QString key;        // empty for bucket-level requests
    int partNumber = 0; // UploadPart only
};

// A request body read from the source file: `length` bytes from `offset`. The request already
// carries its Content-Length and (for parts and PutObject) its Content-MD5.
struct S3FileRange {
    qint64 offset = 0;
    qint64 length = 0;
    friend bool operator==(const S3FileRange &, const S3FileRange &) = default;
};

// One signed S3 request as plain data: whatever transport sends it (the engine's managers, a
// test's QNetworkAccessManager) sets method, URL and headers as given and sends `body`, or the
// file range when there is one. Signed at build time: send it within 15 minutes.
struct S3Request {
    S3RequestContext context;
    QByteArray method;
    QUrl url;
    HttpHeaders headers; // every header to send, Authorization and Content-Length included
    QByteArray body;     // used when fileRange is empty
    std::optional<S3FileRange> fileRange;

    QByteArray header(const QByteArray &name) const { return headerValue(headers, name); }
    qint64 contentLength() const { return fileRange ? fileRange->length : body.size(); }
};

} // namespace multilane
