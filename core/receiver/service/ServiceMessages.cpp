#include "ServiceMessages.h"

#include <QJsonDocument>

namespace multilane {

ServiceResponse ServiceResponse::json(int status, const QJsonObject &object)
{
    ServiceResponse response;
    response.status = status;
    response.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    return response;
}

ServiceResponse ServiceResponse::error(const ProtocolError &error)
{
    return json(httpStatus(error.code), QJsonObject{{QStringLiteral("error"), error.toJson()}});
}

} // namespace multilane
