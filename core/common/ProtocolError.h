#pragma once

#include "ProtocolErrorCode.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QtGlobal>

namespace multilane {

// One error as protocol v1 carries it (`{"error":{…}}`, docs/protocol.md): the code, a message that
// tells the user what to do, for `incomplete` the chunk indexes still missing, and the figures some
// codes carry (quotaBytes/usedBytes for `quota_exceeded`, maxFileSize for `file_too_large`…).
struct ProtocolError {
    ProtocolErrorCode code = ProtocolErrorCode::StorageError;
    QString message;
    QList<qint64> missing;
    // Extra members of the JSON error object, next to code and message.
    QJsonObject figures;

    static ProtocolError make(ProtocolErrorCode code, const QString &message)
    {
        return {code, message, {}, {}};
    }

    // The error object: {"code":…,"message":…}, plus "missing":[…] for `incomplete` and the figures.
    QJsonObject toJson() const;
};

} // namespace multilane
