#include "ServiceMessages.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace multilane {

ServiceResponse ServiceResponse::json(int status, const QJsonObject &object)
{
    ServiceResponse response;
    response.status = status;
    response.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    return response;
}

ServiceResponse ServiceResponse::error(const ReceiverError &error)
{
    QJsonObject details{{QStringLiteral("code"), QLatin1String(errorCodeName(error.code))},
                        {QStringLiteral("message"), error.message}};
    if (error.code == ErrorCode::Incomplete) {
        QJsonArray missing;
        for (const qint64 index : error.missing)
            missing.append(index);
        details.insert(QStringLiteral("missing"), missing);
    }
    for (auto figure = error.figures.begin(); figure != error.figures.end(); ++figure)
        details.insert(figure.key(), figure.value());
    return json(httpStatus(error.code), QJsonObject{{QStringLiteral("error"), details}});
}

} // namespace multilane
