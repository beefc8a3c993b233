#pragma once

#include <QByteArray>

namespace multilane {

// Who may read GET /metrics on a port: with a token (--metrics-token-file), only requests whose
// `Authorization: Bearer …` carries it; without one, anybody who reaches the port (which is why
// the upload ports serve /metrics only with a token, and --metrics-listen is meant for loopback or
// a management network).
class MetricsAccess {
public:
    explicit MetricsAccess(QByteArray token = {});

    bool requiresToken() const { return !m_tokenDigest.isEmpty(); }
    // `authorization` is the header's value ("Bearer s3cret"), empty when absent.
    bool allows(const QByteArray &authorization) const;

private:
    QByteArray m_tokenDigest; // SHA-256 hex, so the compare does not depend on the token's length
};

} // namespace multilane
