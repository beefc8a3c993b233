#pragma once

#include <QByteArray>
#include <QString>
#include <QtGlobal>
#include <optional>

namespace multilane {

// One client credential from the token file. The token itself is never kept, only its SHA-256,
// so neither a log line nor a core dump can give it away.
struct AccessToken {
    QByteArray sha256;           // lowercase hex of the token's SHA-256; empty for "no token"
    QString id;                  // names the token in logs and messages
    QString folder;              // destination paths must lie below it; empty = whole storage
    std::optional<qint64> quota; // bytes of finished + unfinished files in `folder`
    int line = 0;                // where it was defined, for messages
};

} // namespace multilane
