#include "AccessPolicy.h"

#include "Sha256.h"

#include <openssl/crypto.h>

namespace multilane {

namespace {

// The token in "Bearer <token>" (scheme case-insensitive, RFC 6750), or an empty array.
QByteArray bearerToken(const QByteArray &authorization)
{
    const QByteArray value = authorization.trimmed();
    const qsizetype space = value.indexOf(' ');
    if (space < 0 || value.left(space).toLower() != "bearer")
        return {};
    return value.mid(space + 1).trimmed();
}

} // namespace

AccessPolicy::AccessPolicy(QList<AccessToken> tokens)
    : m_tokens(std::move(tokens))
{}

AccessToken AccessPolicy::anonymous()
{
    AccessToken token;
    token.id = QStringLiteral("-");
    return token;
}

qsizetype AccessPolicy::find(const QByteArray &digest) const
{
    // Digests of equal length are compared whole, and every token is visited: no early exit
    // that a client could time. Comparing digests rather than tokens also hides token lengths.
    qsizetype found = -1;
    for (qsizetype i = 0; i < m_tokens.size(); ++i) {
        const QByteArray &known = m_tokens.at(i).sha256;
        const bool same =
            known.size() == digest.size() &&
            CRYPTO_memcmp(known.constData(), digest.constData(), std::size_t(digest.size())) == 0;
        found = same ? i : found;
    }
    return found;
}

Result<AccessToken> AccessPolicy::authenticate(const QByteArray &authorization) const
{
    if (!requiresToken())
        return anonymous();
    const QByteArray token = bearerToken(authorization);
    if (token.isEmpty())
        return ProtocolError::make(ProtocolErrorCode::Unauthorized,
                                   QStringLiteral("this receiver needs a token: send the header "
                                                  "'Authorization: Bearer <token>' with the token its "
                                                  "administrator gave you"));
    Sha256 hash;
    hash.addData(token);
    const qsizetype index = find(hash.hexDigest());
    if (index < 0)
        return ProtocolError::make(
            ProtocolErrorCode::Unauthorized,
            QStringLiteral("this receiver does not know the token that was sent; check "
                           "the token, or ask the receiver's administrator for one"));
    return m_tokens.at(index);
}

QString AccessPolicy::tokenId(const QByteArray &authorization) const
{
    if (!requiresToken())
        return QStringLiteral("-");
    const auto token = authenticate(authorization);
    return token ? token.value().id : QStringLiteral("-");
}

} // namespace multilane
