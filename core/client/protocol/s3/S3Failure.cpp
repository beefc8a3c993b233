#include "S3Failure.h"

namespace multilane {

bool S3Failure::isRetriable() const
{
    return kind == Kind::Retry || kind == Kind::Overloaded || kind == Kind::BadDigest;
}

QString S3Failure::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Retry:
        return QStringLiteral("retry");
    case Kind::Overloaded:
        return QStringLiteral("overloaded");
    case Kind::BadCredentials:
        return QStringLiteral("bad-credentials");
    case Kind::ClockSkew:
        return QStringLiteral("clock-skew");
    case Kind::AccessDenied:
        return QStringLiteral("access-denied");
    case Kind::NoSuchBucket:
        return QStringLiteral("no-such-bucket");
    case Kind::NoSuchUpload:
        return QStringLiteral("no-such-upload");
    case Kind::BadDigest:
        return QStringLiteral("bad-digest");
    case Kind::InvalidPart:
        return QStringLiteral("invalid-part");
    case Kind::WrongRegion:
        return QStringLiteral("wrong-region");
    case Kind::TlsFailure:
        return QStringLiteral("tls-failure");
    case Kind::InvalidInput:
        return QStringLiteral("invalid-input");
    case Kind::Fatal:
        break;
    }
    return QStringLiteral("fatal");
}

S3Failure S3Failure::invalidInput(const QString &userMessage)
{
    S3Failure failure;
    failure.kind = Kind::InvalidInput;
    failure.userMessage = userMessage;
    return failure;
}

} // namespace multilane
