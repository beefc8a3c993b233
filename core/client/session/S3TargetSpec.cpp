#include "S3TargetSpec.h"

namespace multilane {

QString s3AddressingName(S3Addressing addressing)
{
    switch (addressing) {
    case S3Addressing::Path:
        return QStringLiteral("path");
    case S3Addressing::VirtualHost:
        return QStringLiteral("virtual");
    case S3Addressing::Auto:
        break;
    }
    return QStringLiteral("auto");
}

std::optional<S3Addressing> s3AddressingFromName(const QString &name)
{
    for (const S3Addressing addressing :
         {S3Addressing::Auto, S3Addressing::Path, S3Addressing::VirtualHost}) {
        if (name.compare(s3AddressingName(addressing), Qt::CaseInsensitive) == 0)
            return addressing;
    }
    return std::nullopt;
}

} // namespace multilane
