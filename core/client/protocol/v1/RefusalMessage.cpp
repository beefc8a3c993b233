#include "RefusalMessage.h"

#include "ByteSize.h"

#include <QStringBuilder>

namespace multilane::RefusalMessage {

namespace {

QString quotaFigures(const QJsonObject &details)
{
    const qint64 quota = details.value(QLatin1String("quotaBytes")).toInteger(-1);
    const qint64 used = details.value(QLatin1String("usedBytes")).toInteger(-1);
    if (quota < 0 || used < 0)
        return {};
    return QStringLiteral(" (%1 of %2 used, %3 left)")
        .arg(ByteSize::format(used), ByteSize::format(quota),
             ByteSize::format(std::max<qint64>(0, quota - used)));
}

} // namespace

QString explain(const ApiError &error, const QString &endpointName)
{
    const QString said = error.message;
    switch (error.httpStatus) {
    case 401:
        return QStringLiteral(
                   "%1 refused the token (%2): check the token given with --token, in the "
                   "endpoints file or in the Endpoints dialog, or ask the receiver's admin for one")
            .arg(endpointName, said);
    case 403:
        return QStringLiteral("%1 does not let this token write there (%2): send into the token's own "
                              "folder (--dest) or ask the receiver's admin")
            .arg(endpointName, said);
    case 413:
        return QStringLiteral("%1 refuses something this large (%2)").arg(endpointName, said);
    case 429:
        if (error.is(ProtocolErrorCode::TooManyUploads))
            return QStringLiteral(
                       "%1 holds too many unfinished uploads for this token (%2): finish or "
                       "cancel some ('multilane status'), or ask the admin to raise --max-unfinished")
                .arg(endpointName, said);
        break;
    case 507:
        if (error.is(ProtocolErrorCode::QuotaExceeded))
            return QStringLiteral("%1: the token's quota is used up%2 (%3); free space there or ask the "
                                  "receiver's admin for a larger quota")
                .arg(endpointName, quotaFigures(error.details), said);
        return QStringLiteral("%1 is out of disk space (%2); 'multilane resume' continues once space "
                              "is freed there")
            .arg(endpointName, said);
    default:
        break;
    }
    return endpointName % QStringLiteral(": ") % said;
}

} // namespace multilane::RefusalMessage
