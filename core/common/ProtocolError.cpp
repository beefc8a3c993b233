#include "ProtocolError.h"

#include <QJsonArray>

namespace multilane {

QJsonObject ProtocolError::toJson() const
{
    QJsonObject object{{QStringLiteral("code"), QLatin1String(protocolErrorCodeName(code))},
                       {QStringLiteral("message"), message}};
    if (code == ProtocolErrorCode::Incomplete) {
        QJsonArray indexes;
        for (const qint64 index : missing)
            indexes.append(index);
        object.insert(QStringLiteral("missing"), indexes);
    }
    for (auto figure = figures.begin(); figure != figures.end(); ++figure)
        object.insert(figure.key(), figure.value());
    return object;
}

} // namespace multilane
