#include "TlsTrust.h"

#include <QCryptographicHash>
#include <QHash>
#include <QMutex>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslConfiguration>

namespace multilane::TlsTrust {

namespace {

// The pin travels with each request, so the manager-wide handler knows the endpoint's policy.
constexpr auto PinAttribute = QNetworkRequest::Attribute(QNetworkRequest::User + 61);
// Set on a reply whose certificate did not match its pin: the certificate's SHA-256 in hex.
constexpr const char *MismatchProperty = "multilane.tlsPinMismatch";

QString endpointName(const QNetworkReply &reply)
{
    return reply.url()
        .adjusted(QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveUserInfo)
        .toDisplayString();
}

QSslCertificate peerCertificate(const QNetworkReply &reply, const QList<QSslError> &errors = {})
{
    QSslCertificate peer = reply.sslConfiguration().peerCertificate();
    for (qsizetype i = 0; peer.isNull() && i < errors.size(); ++i)
        peer = errors.at(i).certificate();
    return peer;
}

// True when the reply may go on: no pin, or the pin matches. A mismatch is recorded for failure().
bool checkPin(QNetworkReply &reply, const QList<QSslError> &errors = {})
{
    const QByteArray pin = reply.request().attribute(PinAttribute).toByteArray();
    if (pin.isEmpty())
        return true;
    const QByteArray actual = sha256(peerCertificate(reply, errors));
    if (actual == pin)
        return true;
    reply.setProperty(MismatchProperty, QString::fromLatin1(actual.toHex()));
    return false;
}

QString sessionKey(const QUrl &url)
{
    return url.adjusted(QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveUserInfo).toString();
}

// The latest TLS session ticket per receiver address, shared by every manager (lane) of the
// process: Qt shares sessions only among one manager's connections, which open together.
struct SessionTickets {
    QMutex mutex;
    QHash<QString, QByteArray> byAddress;
};
SessionTickets &sessionTickets()
{
    static SessionTickets tickets;
    return tickets;
}

} // namespace

QByteArray sha256(const QSslCertificate &certificate)
{
    if (certificate.isNull())
        return {};
    return QCryptographicHash::hash(certificate.toDer(), QCryptographicHash::Sha256);
}

QSslConfiguration configurationFor(const Endpoint &endpoint)
{
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    // A new connection resumes the session another connection got from this receiver (a
    // resumed handshake skips the certificate check and signature).
    configuration.setSslOption(QSsl::SslOptionDisableSessionPersistence, false);
    // Neither a pin nor a CA file: Qt's default trust, the system CAs and the host name check.
    if (!endpoint.pinSha256.isEmpty()) {
        // Trust no CA at all, so every handshake reports errors and the pin alone decides
        // (watch()); a CA-signed certificate that is not the pinned one is refused too.
        configuration.setCaCertificates({});
    } else if (!endpoint.caCertificates.isEmpty()) {
        // Explicitly the system's plus the file's: setting CA certificates turns off Qt's
        // on-demand loading of the system ones.
        static const QList<QSslCertificate> system = QSslConfiguration::systemCaCertificates();
        configuration.setCaCertificates(system + endpoint.caCertificates);
    }
    return configuration;
}

void apply(QNetworkRequest &request, const Endpoint &endpoint)
{
    if (endpoint.url.scheme() != QLatin1String("https"))
        return;
    QSslConfiguration configuration = configurationFor(endpoint);
    {
        SessionTickets &tickets = sessionTickets();
        const QMutexLocker locker(&tickets.mutex);
        const QByteArray ticket = tickets.byAddress.value(sessionKey(endpoint.url));
        if (!ticket.isEmpty())
            configuration.setSessionTicket(ticket);
    }
    if (!endpoint.pinSha256.isEmpty())
        request.setAttribute(PinAttribute, endpoint.pinSha256);
    request.setSslConfiguration(configuration);
}

void watch(QNetworkAccessManager &manager)
{
    // Both signals reach us before the request is sent (Qt blocks its network thread on them).
    QObject::connect(&manager, &QNetworkAccessManager::sslErrors, &manager,
                     [](QNetworkReply *reply, const QList<QSslError> &errors) {
                         if (!reply->request().attribute(PinAttribute).toByteArray().isEmpty() &&
                             checkPin(*reply, errors))
                             reply->ignoreSslErrors();
                     });
    QObject::connect(&manager, &QNetworkAccessManager::encrypted, &manager, [](QNetworkReply *reply) {
        if (!checkPin(*reply))
            reply->abort();
    });
    // Keeps the session ticket of each answer for the next manager (needs persistence, see apply()).
    QObject::connect(&manager, &QNetworkAccessManager::finished, &manager, [](QNetworkReply *reply) {
        const QByteArray ticket = reply->sslConfiguration().sessionTicket();
        if (ticket.isEmpty() || reply->error() != QNetworkReply::NoError)
            return;
        SessionTickets &tickets = sessionTickets();
        const QMutexLocker locker(&tickets.mutex);
        tickets.byAddress.insert(sessionKey(reply->url()), ticket);
    });
}

TlsFailure pinMismatch(const QString &endpointName, const QByteArray &actualSha256, const QByteArray &pin)
{
    return {
        QStringLiteral("tls_pin_mismatch"),
        QStringLiteral("%1 presented a certificate with SHA-256 %2, not the pinned %3: if the receiver's "
                       "certificate was replaced, pin the new one (multilane-receiver prints it after "
                       "'certificate sha256'); otherwise something else answers at that address")
            .arg(endpointName, QString::fromLatin1(actualSha256.toHex()), QString::fromLatin1(pin.toHex()))};
}

TlsFailure handshakeFailed(const QString &endpointName, bool gotCertificate, const QString &why)
{
    if (!gotCertificate) {
        return {QStringLiteral("tls_failed"),
                QStringLiteral("the TLS handshake with %1 failed (%2): is that an https:// receiver? "
                               "(one started without --tls-cert needs an http:// URL)")
                    .arg(endpointName, why)};
    }
    return {QStringLiteral("tls_untrusted"),
            QStringLiteral("%1: the receiver's certificate is not trusted (%2): pass its CA certificate "
                           "with --ca-file FILE, or pin it with --pin-sha256 HEX (multilane-receiver "
                           "prints it after 'certificate sha256')")
                .arg(endpointName, why)};
}

std::optional<TlsFailure> failure(QNetworkReply &reply)
{
    const QVariant mismatch = reply.property(MismatchProperty);
    if (mismatch.isValid()) {
        return pinMismatch(endpointName(reply), QByteArray::fromHex(mismatch.toString().toLatin1()),
                           reply.request().attribute(PinAttribute).toByteArray());
    }
    if (reply.error() != QNetworkReply::SslHandshakeFailedError)
        return std::nullopt;
    return handshakeFailed(endpointName(reply), !peerCertificate(reply).isNull(), reply.errorString());
}

} // namespace multilane::TlsTrust
