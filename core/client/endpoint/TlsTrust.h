#pragma once

#include "Endpoint.h"

#include <QByteArray>
#include <QString>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;
class QNetworkRequest;
class QSslConfiguration;

namespace multilane {

// Who the client trusts on https:// endpoints: the system CAs, plus an endpoint's CA file, or
// only its pinned certificate. Requests carry the policy; a watched manager enforces pins.
namespace TlsTrust {

// The TLS configuration for `endpoint`: the system CAs, plus its CA file, or no CA at all when
// it is pinned (the pin alone decides then). Session tickets are not set here.
QSslConfiguration configurationFor(const Endpoint &endpoint);
// Sets the request's TLS configuration for `endpoint` (nothing for http://).
void apply(QNetworkRequest &request, const Endpoint &endpoint);
// Makes `manager` accept a pinned endpoint's certificate exactly when its SHA-256 matches.
// Every manager that talks to receivers needs this; unwatched, a pinned endpoint fails closed.
void watch(QNetworkAccessManager &manager);
struct TlsFailure {
    QString code;    // "tls_untrusted", "tls_pin_mismatch", "tls_failed"
    QString message; // names the endpoint and says what to do
};
// A finished reply that failed in TLS, or nullopt.
std::optional<TlsFailure> failure(QNetworkReply &reply);
// The same words for any connection: `endpointName` is its scheme, host and port.
TlsFailure pinMismatch(const QString &endpointName, const QByteArray &actualSha256, const QByteArray &pin);
// gotCertificate: the peer presented one (so it is not trusted); else the handshake itself failed.
TlsFailure handshakeFailed(const QString &endpointName, bool gotCertificate, const QString &why);
QByteArray sha256(const QSslCertificate &certificate);

} // namespace TlsTrust
} // namespace multilane
