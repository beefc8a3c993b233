#pragma once

#include <QString>
#include <optional>

namespace multilane {

// What went wrong with an S3 request, sorted by what the caller should do about it. The engine
// acts on the kind; a person reads userMessage (which names the endpoint and what to do).
struct S3Failure {
    enum class Kind {
        Retry,          // no answer, cut short, 500/502/504, RequestTimeout: send again
        Overloaded,     // 503, SlowDown, 429: send again later, with fewer requests at once
        BadCredentials, // SignatureDoesNotMatch, InvalidAccessKeyId, expired token: every request fails
        ClockSkew,      // RequestTimeTooSkewed: the local clock is off; clockSkewSeconds says by how much
        AccessDenied,   // valid keys, not allowed
        NoSuchBucket,
        NoSuchUpload, // the multipart upload is gone (aborted, expired, completed): start again
        BadDigest,    // the part arrived damaged (Content-MD5 mismatch): send it again
        InvalidPart,  // Complete named a part the server lacks or with another ETag: list parts again
        WrongRegion,  // signed for another region, or a redirect to the bucket's own endpoint
        TlsFailure,   // certificate not trusted, handshake failed
        InvalidInput, // refused locally before sending: bad target, file too large, no credentials
        Fatal,        // anything else the server refused; retrying cannot help
    };

    Kind kind = Kind::Fatal;
    int httpStatus = 0;  // 0: no HTTP answer
    QString code;        // S3's error code, e.g. "NoSuchBucket"; empty when none came
    QString message;     // the server's own message (Ceph sends none)
    QString resource;    // the server's <Resource>, when given
    QString requestId;   // <RequestId> or x-amz-request-id, for the server's admin
    QString userMessage; // for people: what happened, where, what to do; never holds secrets
    std::optional<qint64> clockSkewSeconds; // server time minus local time, when it could be measured

    // The same request may succeed if sent again (Retry, Overloaded, BadDigest).
    bool isRetriable() const;
    static QString kindName(Kind kind);
    static S3Failure invalidInput(const QString &userMessage);
};

} // namespace multilane
