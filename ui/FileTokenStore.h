#pragma once

#include "TokenStore.h"

#include <QJsonObject>

namespace multilane {

// The fallback where the desktop has no keyring: a JSON file only its owner can read (0600),
// written atomically. Plain text on disk, and the endpoints dialog says so.
class FileTokenStore : public TokenStore {
public:
    explicit FileTokenStore(const QString &path);

    // <AppConfigLocation>/tokens.json
    static QString defaultPath();

    QByteArray read(const QString &key) override;
    std::optional<QString> write(const QString &key, const QByteArray &token) override;
    QString description() const override;

private:
    QString m_path;
    QJsonObject m_tokens;
    bool m_loaded = false;
};

} // namespace multilane
