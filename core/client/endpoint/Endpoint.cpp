#include "Endpoint.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace multilane {

QList<QUrl> urlsOf(const QList<Endpoint> &endpoints)
{
    QList<QUrl> urls;
    for (const Endpoint &endpoint : endpoints)
        urls.append(endpoint.url);
    return urls;
}

} // namespace multilane

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

Parsed<QByteArray> pinFromHex(const QString &text)
{
    QString hex = text.trimmed();
    hex.remove(QLatin1Char(':'));
    static const QRegularExpression sha256Hex(QStringLiteral("^[0-9A-Fa-f]{64}$"));
    if (!sha256Hex.match(hex).hasMatch())
        return Parsed<QByteArray>::fail(
            QStringLiteral("'%1' is not a SHA-256 pin: expected 64 hex digits, as multilane-receiver "
                           "prints after 'certificate sha256'")
                .arg(text));
    return Parsed<QByteArray>::ok(QByteArray::fromHex(hex.toLatin1()));
}

std::optional<QString> loadCaFile(Endpoint &endpoint, const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read the CA file %1: %2").arg(path, file.errorString());
    const QList<QSslCertificate> certificates = QSslCertificate::fromData(file.readAll(), QSsl::Pem);
    if (certificates.isEmpty())
        return QStringLiteral("the CA file %1 holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
            .arg(path);
    endpoint.caFile = path;
    endpoint.caCertificates = certificates;
    return std::nullopt;
}

std::optional<QString> applyTlsDefaults(QList<Endpoint> &endpoints, const QString &caFile,
                                        const QByteArray &pinSha256)
{
    for (Endpoint &endpoint : endpoints) {
        if (endpoint.url.scheme() != QLatin1String("https") || !endpoint.caFile.isEmpty() ||
            !endpoint.pinSha256.isEmpty())
            continue;
        endpoint.pinSha256 = pinSha256;
        if (!caFile.isEmpty()) {
            if (auto problem = loadCaFile(endpoint, caFile))
                return problem;
        }
    }
    return std::nullopt;
}

static Parsed<QList<Endpoint>> fromJson(const QJsonDocument &document, const QString &baseDir)
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
        // No maxConnections (or 0, or "auto") is automatic: what the receiver allows.
        const QJsonValue cap = object.value(QLatin1String("maxConnections"));
        endpoint.maxConnections = cap.toString() == QLatin1String("auto") ? 0 : cap.toInt(0);
        if (endpoint.weight < 1 || endpoint.maxConnections < 0 || endpoint.maxConnections > 10000 ||
            (!cap.isUndefined() && !cap.isDouble() && cap.toString() != QLatin1String("auto")))
            return Parsed<QList<Endpoint>>::fail(
                QStringLiteral(
                    "endpoint %1: weight must be at least 1 and maxConnections a number from 1 to 10000 "
                    "(or \"auto\")")
                    .arg(i + 1));
        const QString caFile = object.value(QLatin1String("caFile")).toString();
        const QString pin = object.value(QLatin1String("pinSha256")).toString();
        if ((!caFile.isEmpty() || !pin.isEmpty()) && endpoint.url.scheme() != QLatin1String("https"))
            return Parsed<QList<Endpoint>>::fail(
                QStringLiteral("endpoint %1: caFile and pinSha256 need an https:// URL").arg(i + 1));
        if (!caFile.isEmpty()) {
            if (const auto problem = loadCaFile(endpoint, QDir(baseDir).absoluteFilePath(caFile)))
                return Parsed<QList<Endpoint>>::fail(
                    QStringLiteral("endpoint %1: %2").arg(i + 1).arg(*problem));
        }
        if (!pin.isEmpty()) {
            const Parsed<QByteArray> parsedPin = pinFromHex(pin);
            if (!parsedPin.value)
                return Parsed<QList<Endpoint>>::fail(
                    QStringLiteral("endpoint %1: pinSha256: %2").arg(i + 1).arg(parsedPin.error));
            endpoint.pinSha256 = *parsedPin.value;
        }
        endpoints.append(endpoint);
    }
    return Parsed<QList<Endpoint>>::ok(endpoints);
}

Parsed<QList<Endpoint>> fromFileContents(const QByteArray &contents, const QString &baseDir)
{
    const QByteArray trimmed = contents.trimmed();
    if (trimmed.startsWith('{')) {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(trimmed, &error);
        if (error.error != QJsonParseError::NoError)
            return Parsed<QList<Endpoint>>::fail(
                QStringLiteral("invalid JSON at offset %1: %2").arg(error.offset).arg(error.errorString()));
        return fromJson(document, baseDir);
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
    Parsed<QList<Endpoint>> parsed = fromFileContents(file.readAll(), QFileInfo(path).absolutePath());
    if (!parsed.value)
        parsed.error = path + QLatin1String(": ") + parsed.error;
    return parsed;
}

} // namespace multilane::EndpointParser
