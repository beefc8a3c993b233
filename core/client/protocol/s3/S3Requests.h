#pragma once

#include "S3Credentials.h"
#include "S3Request.h"
#include "S3Target.h"
#include "SigV4Signer.h"

#include <QDateTime>
#include <functional>

namespace multilane {

// What an object carries besides its bytes.
struct S3ObjectMetadata {
    QByteArray sha256Hex;   // stored as x-amz-meta-sha256 when not empty
    QByteArray contentType; // application/octet-stream when empty
};

// One entry of CompleteMultipartUpload's list.
struct S3CompletedPart {
    int partNumber = 0;
    QByteArray etag; // as the server gave it for the part; quoted or not
};

using S3Clock = std::function<QDateTime()>;

// Builds every S3 request an upload needs, signed and ready to send, as plain S3Request values.
// Bodies that come from the file are declared (Content-Length, Content-MD5, UNSIGNED-PAYLOAD);
// small in-memory bodies are signed with their SHA-256.
class S3Requests {
public:
    // The clock gives "now" for signatures (tests fix it); by default the system's UTC time.
    S3Requests(S3Target target, S3Credentials credentials, S3Clock clock = {});

    const S3Target &target() const { return m_target; }
    // After RequestTimeTooSkewed: sign with the server's time instead (server minus local, s).
    void setClockOffsetSeconds(qint64 seconds) { m_clockOffsetSeconds = seconds; }

    S3Request listBuckets(const QUrl &endpoint) const;
    S3Request headBucket(const QUrl &endpoint) const;
    S3Request createMultipartUpload(const QUrl &endpoint, const QString &key,
                                    const S3ObjectMetadata &metadata) const;
    // md5 is the part's binary MD5 (16 bytes); it becomes Content-MD5 and the ETag to expect.
    S3Request uploadPart(const QUrl &endpoint, const QString &key, const QString &uploadId, int partNumber,
                         S3FileRange range, const QByteArray &md5) const;
    S3Request completeMultipartUpload(const QUrl &endpoint, const QString &key, const QString &uploadId,
                                      const QList<S3CompletedPart> &parts) const;
    S3Request abortMultipartUpload(const QUrl &endpoint, const QString &key, const QString &uploadId) const;
    // One page; the next starts at the page's nextPartNumberMarker.
    S3Request listParts(const QUrl &endpoint, const QString &key, const QString &uploadId,
                        int partNumberMarker = 0, int maxParts = 1000) const;
    // Open uploads whose key starts with `prefix`; the next page starts at the page's markers.
    S3Request listMultipartUploads(const QUrl &endpoint, const QString &prefix, const QString &keyMarker = {},
                                   const QString &uploadIdMarker = {}, int maxUploads = 1000) const;
    // Keys that start with `prefix`, at most maxKeys of them (the first page only).
    S3Request listObjects(const QUrl &endpoint, const QString &prefix, int maxKeys) const;
    // onlyIfAbsent: If-None-Match: *, so a key someone wrote since it was seen free answers 412
    // instead of being overwritten (AWS, Ceph's RGW and MinIO honour it).
    S3Request putObject(const QUrl &endpoint, const QString &key, S3FileRange range, const QByteArray &md5,
                        const S3ObjectMetadata &metadata, bool onlyIfAbsent = false) const;
    S3Request headObject(const QUrl &endpoint, const QString &key) const;
    // The whole object (tests and checks read uploads back with it).
    S3Request getObject(const QUrl &endpoint, const QString &key) const;
    // Copies the object onto itself with new metadata (x-amz-metadata-directive: REPLACE): the
    // way to attach a SHA-256 learnt only after the upload (docs/s3.md has its cost). With
    // ifMatchEtag the copy happens only while the object still has that ETag (else 412), so the
    // hash never lands on bytes someone else wrote since they were verified.
    S3Request copyObjectReplacingMetadata(const QUrl &endpoint, const QString &key,
                                          const S3ObjectMetadata &metadata,
                                          const QByteArray &ifMatchEtag = {}) const;

private:
    struct Draft {
        S3Operation operation;
        QByteArray method;
        QUrl url;
        QString key;
        HttpHeaders headers;
        QByteArray body;
        std::optional<S3FileRange> fileRange;
        int partNumber = 0;
    };
    S3Request finish(const QUrl &endpoint, Draft draft) const;
    QDateTime now() const;
    static void addMetadata(HttpHeaders &headers, const S3ObjectMetadata &metadata);

    S3Target m_target;
    SigV4Signer m_signer;
    S3Clock m_clock;
    qint64 m_clockOffsetSeconds = 0;
};

} // namespace multilane
