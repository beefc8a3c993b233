#pragma once

#include <QByteArray>
#include <QList>
#include <QSslCertificate>
#include <QString>
#include <QUrl>
#include <optional>

namespace multilane {

// One receiver address the client may send to, with what the admin set for it.
struct Endpoint {
    QUrl url;         // http://host:port (a path prefix is kept: http://host/multilane)
    QByteArray token; // sent as "Authorization: Bearer <token>" when not empty
    int weight = 1;   // share of chunks relative to the other endpoints
    // The most connections to open to it: a cap the user or admin set, or 0 for automatic (what
    // the receiver says it allows one client, else EndpointPool::DefaultAutomaticCap).
    int maxConnections = 0;
    // https only. PEM CA certificates trusted in addition to the system's; caFile names their file.
    QString caFile;
    QList<QSslCertificate> caCertificates;
    // https only. SHA-256 of the receiver's certificate (DER, 32 bytes). When set it is the only
    // check: the certificate is accepted, even self-signed, exactly when it matches.
    QByteArray pinSha256;

    QString displayName() const
    {
        return url.toDisplayString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
    }
};

// Just the URLs, in order.
QList<QUrl> urlsOf(const QList<Endpoint> &endpoints);

// A value or a human-readable reason, for parsing user input.
template<typename T> struct Parsed {
    std::optional<T> value;
    QString error;
    static Parsed ok(T v) { return {std::move(v), {}}; }
    static Parsed fail(QString why) { return {std::nullopt, std::move(why)}; }
};

namespace EndpointParser {
// "http://host:9101", "host:9101" (http assumed). Rejects other schemes and missing hosts.
Parsed<Endpoint> fromUrl(const QString &text);
// One URL per line (blank lines and # comments skipped), or
// {"endpoints":[{"url":…,"token":…,"weight":…,"maxConnections":…,"caFile":…,"pinSha256":…}]};
// a relative caFile is read from baseDir (the endpoints file's folder).
Parsed<QList<Endpoint>> fromFileContents(const QByteArray &contents, const QString &baseDir = {});
Parsed<QList<Endpoint>> fromFile(const QString &path);
// 64 hex digits, colons allowed (as `openssl x509 -fingerprint -sha256` prints them) -> 32 bytes.
Parsed<QByteArray> pinFromHex(const QString &text);
// Reads the PEM certificates of `path` into endpoint.caFile/caCertificates; the error names the file.
std::optional<QString> loadCaFile(Endpoint &endpoint, const QString &path);
// The command line's --ca-file / --pin-sha256: for each https endpoint that sets neither itself.
std::optional<QString> applyTlsDefaults(QList<Endpoint> &endpoints, const QString &caFile,
                                        const QByteArray &pinSha256);
} // namespace EndpointParser

} // namespace multilane
