#include "Endpoint.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace multilane::EndpointParser {

Parsed<Endpoint> fromUrl(const QString &text)
{
    QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return Parsed<Endpoint>::fail(QStringLiteral("empty endpoint"));
    // "host:port" is short for http://host:port; anything else needs its scheme spelled out.
    static const QRegularExpression bareHost(
        QStringLiteral("^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+)(:\\d+)?(/.*)?$"));
    if (!trimmed.contains(QLatin1String("://"))) {
        if (!bareHost.match(trimmed).hasMatch())
            return Parsed<Endpoint>::fail(
                QStringLiteral("'%1' is not an endpoint URL (expected e.g. http://host:9101)").arg(text));
        trimmed.prepend(QLatin1String("http://"));
    }
    const QUrl url(trimmed, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty() || !url.userInfo().isEmpty())
        return Parsed<Endpoint>::fail(
            QStringLiteral("'%1' is not an endpoint URL (expected e.g. http://host:9101)").arg(text));
    if (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))
        return Parsed<Endpoint>::fail(
            QStringLiteral("'%1': only http:// and https:// endpoints are supported").arg(text));
    Endpoint endpoint;
    endpoint.url = url.adjusted(QUrl::StripTrailingSlash);
    return Parsed<Endpoint>::ok(endpoint);
}

static Parsed<QList<Endpoint>> fromJson(const QJsonDocument &document)
{
    const QJsonValue list = document.object().value(QLatin1String("endpoints"));
    if (!list.isArray())
        return Parsed<QList<Endpoint>>::fail(QStringLiteral("the JSON has no \"endpoints\" array"));
    QList<Endpoint> endpoints;
    const QJsonArray array = list.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QJsonObject object = array.at(i).toObject();
        Parsed<Endpoint> parsed = fromUrl(object.value(QLatin1String("url")).toString());
        if (!parsed.value)
            return Parsed<QList<Endpoint>>::fail(
                QStringLiteral("endpoint %1: %2").arg(i + 1).arg(parsed.error));
        Endpoint endpoint = *parsed.value;
        endpoint.token = object.value(QLatin1String("token")).toString().toUtf8();
        endpoint.weight = object.value(QLatin1String("weight")).toInt(1);
        endpoint.maxConnections = object.value(QLatin1String("maxConnections")).toInt(6);
        if (endpoint.weight < 1 || endpoint.maxConnections < 1)
            return Parsed<QList<Endpoint>>::fail(
                QStringLiteral("endpoint %1: weight and maxConnections must be at least 1").arg(i + 1));
        endpoints.append(endpoint);
    }
    return Parsed<QList<Endpoint>>::ok(endpoints);
}

Parsed<QList<Endpoint>> fromFileContents(const QByteArray &contents)
{
    const QByteArray trimmed = contents.trimmed();
    if (trimmed.startsWith('{')) {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(trimmed, &error);
        if (error.error != QJsonParseError::NoError)
            return Parsed<QList<Endpoint>>::fail(
                QStringLiteral("invalid JSON at offset %1: %2").arg(error.offset).arg(error.errorString()));
        return fromJson(document);
    }
    QList<Endpoint> endpoints;
    int lineNumber = 0;
    for (const QByteArray &rawLine : trimmed.split('\n')) {
        ++lineNumber;
        const QString line = QString::fromUtf8(rawLine).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        Parsed<Endpoint> parsed = fromUrl(line);
        if (!parsed.value)
            return Parsed<QList<Endpoint>>::fail(
                QStringLiteral("line %1: %2").arg(lineNumber).arg(parsed.error));
        endpoints.append(*parsed.value);
    }
    return Parsed<QList<Endpoint>>::ok(endpoints);
}

Parsed<QList<Endpoint>> fromFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Parsed<QList<Endpoint>>::fail(
            QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    Parsed<QList<Endpoint>> parsed = fromFileContents(file.readAll());
    if (!parsed.value)
        parsed.error = path + QLatin1String(": ") + parsed.error;
    return parsed;
}

} // namespace multilane::EndpointParser
