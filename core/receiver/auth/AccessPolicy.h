#pragma once

#include "AccessToken.h"
#include "ProtocolError.h"
#include "Result.h"

#include <QList>

namespace multilane {

// Who may use the receiver: without tokens everyone (the anonymous token: whole storage, no
// quota); with a token file only requests that present one of its tokens as
// `Authorization: Bearer <token>`. Immutable after construction, so server threads share it.
class AccessPolicy {
public:
    AccessPolicy() = default;
    explicit AccessPolicy(QList<AccessToken> tokens);

    bool requiresToken() const { return !m_tokens.isEmpty(); }
    const QList<AccessToken> &tokens() const { return m_tokens; }

    // The token an Authorization header value presents, or `unauthorized` with a message that
    // says what to send. Every known token is compared, each over its full digest in constant
    // time, so the time taken tells neither which token nor how much of one matched.
    Result<AccessToken> authenticate(const QByteArray &authorization) const;
    // For access logs: the id of the presented token, or "-" (none, unknown, or an open receiver).
    QString tokenId(const QByteArray &authorization) const;

    static AccessToken anonymous();

private:
    // Index in m_tokens of the token whose digest equals `digest`, or -1.
    qsizetype find(const QByteArray &digest) const;

    QList<AccessToken> m_tokens;
};

} // namespace multilane
