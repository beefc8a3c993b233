#pragma once

#include "S3Failure.h"
#include "S3Reply.h"
#include "S3Request.h"

#include <optional>

namespace multilane {

// An S3 <Error> document. Ceph sends an empty Message; AWS adds fields for some codes.
struct S3ErrorBody {
    QString code;
    QString message;
    QString resource;
    QString requestId;
    QString region;      // AuthorizationHeaderMalformed: the region the server expected
    QString endpoint;    // PermanentRedirect: the endpoint to use instead
    QString serverTime;  // RequestTimeTooSkewed (AWS)
    QString requestTime; // RequestTimeTooSkewed (AWS)
};

// Turns a refused or failed request into an S3Failure: what kind (so the engine knows whether
// to retry, back off, ask for keys, or give up) and what to tell a person (naming the endpoint,
// the object and the fix).
namespace S3FailureClassifier {

// nullopt when the body is not an S3 <Error> document.
std::optional<S3ErrorBody> parseErrorBody(const QByteArray &body);
// For a reply with no HTTP answer, or a status outside 2xx, or (CompleteMultipartUpload,
// CopyObject) a 200 whose body is an <Error>.
S3Failure classify(const S3RequestContext &context, const S3Reply &reply);
// For a 2xx whose body cannot be read as the expected answer: most likely cut short, so retried.
S3Failure unreadableAnswer(const S3RequestContext &context, const S3Reply &reply, const QString &why);
// Server time minus local time from the reply's Date header; nullopt without one.
std::optional<qint64> clockSkewSeconds(const S3Reply &reply);

} // namespace S3FailureClassifier
} // namespace multilane
