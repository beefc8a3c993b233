#include "S3Wire.h"

namespace multilane::S3Wire {

WireRequest toWire(const S3Request &request, const QString &localPath)
{
    WireRequest wire;
    wire.method = request.method;
    wire.url = request.url;
    for (const HttpHeader &header : request.headers) {
        // The transport sets Content-Length itself, from the body it sends.
        if (header.name.compare("Content-Length", Qt::CaseInsensitive) != 0)
            wire.headers.append({header.name, header.value});
    }
    wire.body = request.body;
    if (request.fileRange)
        wire.file = FileSlice{localPath, request.fileRange->offset, request.fileRange->length};
    return wire;
}

S3Reply fromWire(const WireReply &reply, const QDateTime &receivedAt)
{
    S3Reply s3;
    s3.receivedAt = receivedAt;
    // An answer cut short is no answer: the readers would take half an XML document for a bad one.
    if (!reply.isWhole()) {
        s3.networkError =
            reply.tlsFailure ? QNetworkReply::SslHandshakeFailedError : QNetworkReply::UnknownNetworkError;
        s3.networkErrorText = reply.tlsFailure ? *reply.tlsFailure : reply.networkError;
        if (s3.networkErrorText.isEmpty())
            s3.networkErrorText = QStringLiteral("the connection closed before the answer was whole");
        return s3;
    }
    s3.httpStatus = reply.httpStatus;
    for (const WireHeader &header : reply.headers)
        s3.headers.append({header.name, header.value});
    s3.body = reply.body;
    return s3;
}

static FailureKind kindFor(const S3Failure &failure)
{
    using Kind = S3Failure::Kind;
    switch (failure.kind) {
    case Kind::Retry:
        return FailureKind::Retry;
    case Kind::Overloaded:
        return FailureKind::Overloaded;
    case Kind::BadCredentials:
    case Kind::ClockSkew: // every request signed with this clock is refused the same way
        return FailureKind::BadCredentials;
    case Kind::NoSuchUpload:
    case Kind::InvalidPart: // attach again: ListParts says what is really there
        return FailureKind::Recreate;
    case Kind::BadDigest:
        return FailureKind::Corrupted;
    case Kind::AccessDenied:
    case Kind::NoSuchBucket:
    case Kind::WrongRegion:
    case Kind::TlsFailure:
    case Kind::InvalidInput:
    case Kind::Fatal:
        break;
    }
    // A quota may be raised or space freed: a later `multilane resume` can finish the file.
    if (failure.code == QLatin1String("QuotaExceeded"))
        return FailureKind::ResumeLater;
    return FailureKind::Fatal;
}

ProtocolFailure toProtocolFailure(const S3Failure &failure)
{
    ProtocolFailure result;
    result.kind = kindFor(failure);
    result.httpStatus = failure.httpStatus;
    result.code = failure.code.isEmpty() ? S3Failure::kindName(failure.kind) : failure.code;
    result.message = failure.userMessage;
    return result;
}

ProtocolFailure fatal(const QString &code, const QString &message)
{
    ProtocolFailure result;
    result.kind = FailureKind::Fatal;
    result.code = code;
    result.message = message;
    return result;
}

} // namespace multilane::S3Wire
