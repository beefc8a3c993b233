#pragma once

#include "S3Credentials.h"
#include "S3Request.h"

#include <QByteArray>
#include <QDateTime>
#include <QString>
#include <QUrl>

namespace multilane {

// Every intermediate of one signature, so a test can compare each step with AWS's examples.
struct SigV4Signature {
    QByteArray canonicalRequest;
    QByteArray stringToSign;
    QByteArray signedHeaders; // "host;x-amz-content-sha256;x-amz-date"
    QByteArray signature;     // lowercase hex
    QByteArray authorization; // the Authorization header's value
    // What the request must carry besides its own headers: x-amz-date, x-amz-content-sha256,
    // x-amz-security-token (temporary credentials) and Authorization. Host is the transport's.
    HttpHeaders headersToAdd;
};

// AWS Signature Version 4 in the Authorization header (docs.aws.amazon.com, "Authenticating
// Requests: Using the Authorization Header"). Header signing only: the payload is either hashed
// by the caller or declared UNSIGNED-PAYLOAD; never aws-chunked.
class SigV4Signer {
public:
    static constexpr char UnsignedPayload[] = "UNSIGNED-PAYLOAD";
    static constexpr char EmptyPayloadHash[] =
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    SigV4Signer(S3Credentials credentials, QString region, QString service = QStringLiteral("s3"));

    // Signs `headers` (names in any case; the transport sends them as given) plus host,
    // x-amz-date and x-amz-content-sha256 (= payloadHash: hex SHA-256 or UnsignedPayload).
    SigV4Signature sign(const QByteArray &method, const QUrl &url, const HttpHeaders &headers,
                        const QByteArray &payloadHash, const QDateTime &time) const;

    const QString &region() const { return m_region; }

    // The steps, public for the tests.
    static QByteArray canonicalUri(const QUrl &url);
    static QByteArray canonicalQuery(const QUrl &url);
    // What Qt sends as Host: the host (ACE, brackets for IPv6) and the port unless the default.
    static QByteArray hostHeader(const QUrl &url);
    static QByteArray signingKey(const QString &secretAccessKey, const QByteArray &date,
                                 const QString &region, const QString &service);
    static QByteArray amzDate(const QDateTime &time);      // 20130524T000000Z
    static QByteArray payloadHash(const QByteArray &body); // hex SHA-256, for x-amz-content-sha256
    static QByteArray hmacSha256(const QByteArray &key, const QByteArray &data);

private:
    S3Credentials m_credentials;
    QString m_region;
    QString m_service;
};

} // namespace multilane
