#pragma once

#include "Endpoint.h"

#include <QByteArray>
#include <QString>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;
class QNetworkRequest;

namespace multilane {

// Who the client trusts on https:// endpoints: the system CAs, plus an endpoint's CA file, or
// only its pinned certificate. Requests carry the policy; a watched manager enforces pins.
namespace TlsTrust {

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
QByteArray sha256(const QSslCertificate &certificate);

} // namespace TlsTrust
} // namespace multilane
