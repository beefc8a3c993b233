#include "S3FailureClassifier.h"

#include "HttpDate.h"
#include "S3Xml.h"

#include <cstdlib>

namespace multilane::S3FailureClassifier {

namespace {

using Kind = S3Failure::Kind;

QString subject(const S3RequestContext &context)
{
    switch (context.operation) {
    case S3Operation::UploadPart:
        return QStringLiteral("part %1 of '%2'").arg(context.partNumber).arg(context.key);
    case S3Operation::ListBuckets:
        return QStringLiteral("the bucket list");
    case S3Operation::HeadBucket:
    case S3Operation::ListMultipartUploads:
    case S3Operation::ListObjects:
        return QStringLiteral("bucket '%1'").arg(context.bucket);
    default:
        return QStringLiteral("'%1'").arg(context.key);
    }
}

QString skewPhrase(std::optional<qint64> skew)
{
    if (!skew)
        return QStringLiteral("this computer's clock");
    if (std::llabs(*skew) < 2)
        return QStringLiteral("this computer's clock (it agrees with the server's)");
    return QStringLiteral("this computer's clock (it is %1 s %2 the server's)")
        .arg(std::llabs(*skew))
        .arg(*skew > 0 ? QStringLiteral("behind") : QStringLiteral("ahead of"));
}

struct Verdict {
    Kind kind;
    QString what; // what happened, after the endpoint's name
    QString todo; // what to do; empty when nothing needs doing by a person
};

// The codes that mean the keys, the token or the clock are wrong, or the keys lack a right.
std::optional<Verdict> credentialVerdict(const S3RequestContext &context, const QString &code,
                                         std::optional<qint64> skew)
{
    if (code == QLatin1String("SignatureDoesNotMatch"))
        return Verdict{Kind::BadCredentials, QStringLiteral("refused the request's signature"),
                       QStringLiteral("check the secret key (AWS_SECRET_ACCESS_KEY or the profile's "
                                      "aws_secret_access_key) and %1")
                           .arg(skewPhrase(skew))};
    if (code == QLatin1String("InvalidAccessKeyId"))
        return Verdict{Kind::BadCredentials, QStringLiteral("does not know the access key"),
                       QStringLiteral("check AWS_ACCESS_KEY_ID (or the profile) and that the key was made "
                                      "for this server")};
    if (code == QLatin1String("ExpiredToken") || code == QLatin1String("InvalidToken") ||
        code == QLatin1String("TokenRefreshRequired"))
        return Verdict{Kind::BadCredentials, QStringLiteral("refused the session token"),
                       QStringLiteral("get new temporary credentials (AWS_SESSION_TOKEN has expired or "
                                      "belongs to other keys)")};
    if (code == QLatin1String("RequestTimeTooSkewed"))
        return Verdict{Kind::ClockSkew, QStringLiteral("refused a request signed at the wrong time"),
                       QStringLiteral("set %1 right (NTP)").arg(skewPhrase(skew))};
    if (code == QLatin1String("AccessDenied") || code == QLatin1String("AllAccessDisabled"))
        return Verdict{Kind::AccessDenied, QStringLiteral("denied access to %1").arg(subject(context)),
                       QStringLiteral("the keys are valid but may not write to bucket '%1': check the "
                                      "user's permissions or the bucket policy")
                           .arg(context.bucket)};
    return std::nullopt;
}

// The codes about one multipart upload and its parts.
std::optional<Verdict> uploadVerdict(const S3RequestContext &context, const QString &code)
{
    const bool uploadOperation = context.operation == S3Operation::UploadPart ||
                                 context.operation == S3Operation::ListParts ||
                                 context.operation == S3Operation::CompleteMultipartUpload ||
                                 context.operation == S3Operation::AbortMultipartUpload;
    // Ceph answers NoSuchKey where AWS says NoSuchUpload (ListParts of an aborted upload).
    if (code == QLatin1String("NoSuchUpload") || (code == QLatin1String("NoSuchKey") && uploadOperation))
        return Verdict{Kind::NoSuchUpload,
                       QStringLiteral("no longer holds the multipart upload of '%1' (aborted, expired or "
                                      "already completed)")
                           .arg(context.key),
                       {}};
    if (code == QLatin1String("BadDigest") || code == QLatin1String("InvalidDigest"))
        return Verdict{
            Kind::BadDigest,
            QStringLiteral("received %1 damaged (its MD5 differs from Content-MD5)").arg(subject(context)),
            {}};
    if (code == QLatin1String("InvalidPart") || code == QLatin1String("InvalidPartOrder"))
        return Verdict{Kind::InvalidPart,
                       QStringLiteral("refused the part list of '%1' (a part is missing or has another "
                                      "ETag)")
                           .arg(context.key),
                       {}};
    if (code == QLatin1String("EntityTooSmall"))
        return Verdict{
            Kind::Fatal,
            QStringLiteral("refused '%1': a part other than the last is below 5 MiB").arg(context.key),
            QStringLiteral("report this: the part size must be at least 5 MiB")};
    return std::nullopt;
}

std::optional<Verdict> byCode(const S3RequestContext &context, const S3ErrorBody &error, const S3Reply &reply,
                              std::optional<qint64> skew)
{
    const QString &code = error.code;
    if (code == QLatin1String("SlowDown") || code == QLatin1String("ServiceUnavailable") ||
        code.startsWith(QLatin1String("Throttl")) || code == QLatin1String("RequestLimitExceeded") ||
        code == QLatin1String("TooManyRequests"))
        return Verdict{Kind::Overloaded, QStringLiteral("asks for fewer requests"), {}};
    if (code == QLatin1String("InternalError") || code == QLatin1String("RequestTimeout") ||
        code == QLatin1String("OperationAborted"))
        return Verdict{Kind::Retry, QStringLiteral("failed %1 for now").arg(subject(context)), {}};
    if (auto verdict = credentialVerdict(context, code, skew))
        return verdict;
    if (auto verdict = uploadVerdict(context, code))
        return verdict;
    if (code == QLatin1String("NoSuchBucket"))
        return Verdict{Kind::NoSuchBucket, QStringLiteral("has no bucket '%1'").arg(context.bucket),
                       QStringLiteral("check the name in s3://%1/ or create the bucket").arg(context.bucket)};
    if (code == QLatin1String("AuthorizationHeaderMalformed") || code == QLatin1String("PermanentRedirect") ||
        code == QLatin1String("TemporaryRedirect") ||
        code == QLatin1String("IllegalLocationConstraintException")) {
        const QString region =
            error.region.isEmpty() ? QString::fromUtf8(reply.header("x-amz-bucket-region")) : error.region;
        QString todo = QStringLiteral("set the bucket's region (AWS_REGION)");
        if (!region.isEmpty())
            todo = QStringLiteral("set AWS_REGION=%1 (the bucket's region)").arg(region);
        else if (!error.endpoint.isEmpty())
            todo = QStringLiteral("use the endpoint https://%1").arg(error.endpoint);
        return Verdict{Kind::WrongRegion, QStringLiteral("says bucket '%1' is elsewhere").arg(context.bucket),
                       todo};
    }
    if (code == QLatin1String("PreconditionFailed"))
        return Verdict{
            Kind::Fatal,
            QStringLiteral("did not copy %1: it changed since it was checked").arg(subject(context)),
            QStringLiteral("upload it again")};
    if (code == QLatin1String("QuotaExceeded"))
        return Verdict{
            Kind::Fatal,
            QStringLiteral("refused %1: the user's or bucket's quota is used up").arg(subject(context)),
            QStringLiteral("free space or ask the admin for a larger quota")};
    return std::nullopt;
}

Verdict byStatus(const S3RequestContext &context, const S3Reply &reply, std::optional<qint64> skew)
{
    const int status = reply.httpStatus;
    const QString thing = subject(context);
    if (status == 503 || status == 429)
        return {Kind::Overloaded, QStringLiteral("asks for fewer requests"), {}};
    if (status >= 500 || status == 408)
        return {Kind::Retry, QStringLiteral("failed %1 for now").arg(thing), {}};
    // HEAD answers have no body: a 403 may be bad keys, a skewed clock or a missing permission.
    if (status == 403)
        return {Kind::AccessDenied, QStringLiteral("refused %1").arg(thing),
                QStringLiteral("check the keys, %1 and the user's permissions on bucket '%2'")
                    .arg(skewPhrase(skew), context.bucket)};
    if (status == 404 && context.operation == S3Operation::HeadBucket)
        return {Kind::NoSuchBucket, QStringLiteral("has no bucket '%1'").arg(context.bucket),
                QStringLiteral("check the name in s3://%1/ or create the bucket").arg(context.bucket)};
    if (status == 301 || status == 307 || !reply.header("x-amz-bucket-region").isEmpty()) {
        const QString region = QString::fromUtf8(reply.header("x-amz-bucket-region"));
        return {Kind::WrongRegion, QStringLiteral("says bucket '%1' is elsewhere").arg(context.bucket),
                region.isEmpty() ? QStringLiteral("set the bucket's region (AWS_REGION)")
                                 : QStringLiteral("set AWS_REGION=%1 (the bucket's region)").arg(region)};
    }
    return {Kind::Fatal, QStringLiteral("refused %1").arg(thing), {}};
}

S3Failure transportFailure(const S3RequestContext &context, const S3Reply &reply)
{
    S3Failure failure;
    const QString name = context.endpointName;
    if (reply.networkError == QNetworkReply::SslHandshakeFailedError) {
        failure.kind = Kind::TlsFailure;
        failure.userMessage = QStringLiteral("%1: TLS failed (%2): if the gateway's certificate comes from a "
                                             "private CA, set AWS_CA_BUNDLE to that CA's PEM file")
                                  .arg(name, reply.networkErrorText);
        return failure;
    }
    failure.kind = Kind::Retry;
    failure.userMessage = QStringLiteral("%1: no answer for %2 (%3)")
                              .arg(name, subject(context),
                                   reply.networkErrorText.isEmpty() ? QStringLiteral("connection lost")
                                                                    : reply.networkErrorText);
    return failure;
}

} // namespace

std::optional<S3ErrorBody> parseErrorBody(const QByteArray &body)
{
    QString ignored;
    const std::optional<S3XmlElement> root = S3Xml::parse(body, &ignored);
    if (!root || root->name != QLatin1String("Error"))
        return std::nullopt;
    S3ErrorBody error;
    error.code = root->childText(QStringLiteral("Code")).trimmed();
    error.message = root->childText(QStringLiteral("Message")).trimmed();
    error.resource = root->childText(QStringLiteral("Resource"));
    error.requestId = root->childText(QStringLiteral("RequestId")).trimmed();
    error.region = root->childText(QStringLiteral("Region")).trimmed();
    error.endpoint = root->childText(QStringLiteral("Endpoint")).trimmed();
    error.serverTime = root->childText(QStringLiteral("ServerTime")).trimmed();
    error.requestTime = root->childText(QStringLiteral("RequestTime")).trimmed();
    return error;
}

std::optional<qint64> clockSkewSeconds(const S3Reply &reply)
{
    const QDateTime server = HttpDate::parse(reply.header("Date"));
    if (!server.isValid() || !reply.receivedAt.isValid())
        return std::nullopt;
    return reply.receivedAt.secsTo(server);
}

S3Failure classify(const S3RequestContext &context, const S3Reply &reply)
{
    if (reply.httpStatus == 0)
        return transportFailure(context, reply);
    S3Failure failure;
    failure.httpStatus = reply.httpStatus;
    failure.requestId = QString::fromLatin1(reply.header("x-amz-request-id"));
    failure.clockSkewSeconds = clockSkewSeconds(reply);
    const std::optional<S3ErrorBody> error = parseErrorBody(reply.body);
    std::optional<Verdict> verdict;
    if (error) {
        failure.code = error->code;
        failure.message = error->message;
        failure.resource = error->resource;
        if (!error->requestId.isEmpty())
            failure.requestId = error->requestId;
        verdict = byCode(context, *error, reply, failure.clockSkewSeconds);
    }
    if (!verdict)
        verdict = byStatus(context, reply, failure.clockSkewSeconds);
    failure.kind = verdict->kind;
    const QString why = failure.code.isEmpty()
                            ? QStringLiteral("HTTP %1").arg(reply.httpStatus)
                            : QStringLiteral("%1, HTTP %2").arg(failure.code).arg(reply.httpStatus);
    const QString said =
        failure.message.isEmpty() ? QString() : QStringLiteral(": \"%1\"").arg(failure.message);
    failure.userMessage = QStringLiteral("%1 %2 (%3%4)").arg(context.endpointName, verdict->what, why, said);
    if (!verdict->todo.isEmpty())
        failure.userMessage += QStringLiteral(": ") + verdict->todo;
    return failure;
}

S3Failure unreadableAnswer(const S3RequestContext &context, const S3Reply &reply, const QString &why)
{
    S3Failure failure;
    failure.kind = Kind::Retry;
    failure.httpStatus = reply.httpStatus;
    failure.requestId = QString::fromLatin1(reply.header("x-amz-request-id"));
    failure.userMessage = QStringLiteral("%1 answered %2 for %3 but the answer cannot be read (%4)")
                              .arg(context.endpointName)
                              .arg(reply.httpStatus)
                              .arg(subject(context), why);
    return failure;
}

} // namespace multilane::S3FailureClassifier
