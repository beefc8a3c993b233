#pragma once

#include "UserSettings.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace multilane {

// Where endpoint tokens live, away from the plain settings file. Keyed by endpoint URL.
class TokenStore {
public:
    virtual ~TokenStore() = default;

    virtual QByteArray read(const QString &key) = 0;
    // An empty token removes the entry. Returns what went wrong, if anything.
    virtual std::optional<QString> write(const QString &key, const QByteArray &token) = 0;
    // Where tokens are kept, in words for the endpoints dialog.
    virtual QString description() const = 0;

    // Fills the tokens of `entries` that have none from the store.
    void fillTokens(QList<EndpointEntry> &entries);
    // Stores the tokens of `entries`; returns the first problem.
    std::optional<QString> storeTokens(const QList<EndpointEntry> &entries);
};

} // namespace multilane
