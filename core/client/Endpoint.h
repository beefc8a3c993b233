#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QUrl>
#include <optional>

namespace multilane {

// One receiver address the client may send to, with what the admin set for it.
struct Endpoint {
    QUrl url;         // http://host:port (a path prefix is kept: http://host/multilane)
    QByteArray token; // sent as "Authorization: Bearer <token>" when not empty
    int weight = 1;   // share of chunks relative to the other endpoints
    int maxConnections = 6;

    QString displayName() const
    {
        return url.toDisplayString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
    }
};

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
// {"endpoints":[{"url":…,"token":…,"weight":…,"maxConnections":…}]}.
Parsed<QList<Endpoint>> fromFileContents(const QByteArray &contents);
Parsed<QList<Endpoint>> fromFile(const QString &path);
} // namespace EndpointParser

} // namespace multilane
