#pragma once

#include "TokenStore.h"

namespace multilane {

// Tokens in the desktop keyring (Secret Service, KWallet) through QtKeychain. When no keyring
// answers, it hands over to the fallback store for good and says so in description().
class KeychainTokenStore : public TokenStore {
public:
    explicit KeychainTokenStore(TokenStore &fallback);

    QByteArray read(const QString &key) override;
    std::optional<QString> write(const QString &key, const QByteArray &token) override;
    QString description() const override;
    bool usingFallback() const { return m_usingFallback; }

private:
    TokenStore &m_fallback;
    bool m_usingFallback = false;
};

} // namespace multilane
