#include "SettingsJson.h"

#include "ByteSize.h"

#include <QJsonDocument>

namespace multilane::SettingsJson {

static QJsonArray endpointsToJson(const QList<EndpointEntry> &entries, bool withTokens)
{
    QJsonArray array;
    for (const EndpointEntry &entry : entries) {
        QJsonObject object{{QStringLiteral("url"), entry.endpoint.url.toString()},
                           {QStringLiteral("weight"), entry.endpoint.weight},
                           {QStringLiteral("enabled"), entry.enabled}};
        if (entry.endpoint.maxConnections > 0) // absent: automatic
            object.insert(QStringLiteral("maxConnections"), entry.endpoint.maxConnections);
        if (withTokens && !entry.endpoint.token.isEmpty())
            object.insert(QStringLiteral("token"), QString::fromUtf8(entry.endpoint.token));
        // Trust settings are not secrets: a CA file path and a certificate fingerprint.
        if (!entry.endpoint.caFile.isEmpty())
            object.insert(QStringLiteral("caFile"), entry.endpoint.caFile);
        if (!entry.endpoint.pinSha256.isEmpty())
            object.insert(QStringLiteral("pinSha256"), QString::fromLatin1(entry.endpoint.pinSha256.toHex()));
        array.append(object);
    }
    return array;
}

QJsonObject toJson(const UserSettings &s)
{
    QJsonObject object;
    object.insert(SettingKeys::connections(), s.connections);
    object.insert(SettingKeys::chunkSize(),
                  s.chunkSizeAuto ? QJsonValue(QStringLiteral("auto")) : QJsonValue(double(s.chunkSize)));
    object.insert(SettingKeys::speedLimit(), double(s.speedLimitBytesPerSecond));
    object.insert(SettingKeys::maxAttempts(), s.maxAttempts);
    object.insert(SettingKeys::retryBaseDelayMs(), s.retryBaseDelayMs);
    object.insert(SettingKeys::notifyOnFinish(), s.notifyOnFinish);
    object.insert(SettingKeys::notifyOnFailure(), s.notifyOnFailure);
    object.insert(SettingKeys::startOnDrop(), s.startOnDrop);
    object.insert(SettingKeys::onConflict(), QString::fromLatin1(conflictPolicyName(s.onConflict)));
    object.insert(SettingKeys::destination(), s.destination);
    object.insert(SettingKeys::endpoints(), endpointsToJson(s.endpoints, false));
    object.insert(SettingKeys::s3(), s.s3.toJson());
    return object;
}

// Numbers may be written as JSON numbers or as sizes like "8M" (admins write files by hand).
static std::optional<qint64> sizeValue(const QJsonValue &value)
{
    if (value.isDouble())
        return qint64(value.toDouble());
    return ByteSize::parse(value.toString());
}

static Parsed<QList<EndpointEntry>> endpointsFromJson(const QJsonArray &array)
{
    // The engine's parser is the one authority on what an endpoint is; "enabled" is ours.
    const QByteArray document = QJsonDocument(QJsonObject{{QStringLiteral("endpoints"), array}}).toJson();
    const Parsed<QList<Endpoint>> parsed = EndpointParser::fromFileContents(document);
    if (!parsed.value)
        return Parsed<QList<EndpointEntry>>::fail(parsed.error);
    QList<EndpointEntry> entries;
    for (qsizetype i = 0; i < parsed.value->size(); ++i)
        entries.append(
            {parsed.value->at(i), array.at(i).toObject().value(QLatin1String("enabled")).toBool(true)});
    return Parsed<QList<EndpointEntry>>::ok(entries);
}

QStringList apply(const QJsonObject &o, UserSettings &s)
{
    QStringList problems;
    auto bad = [&problems](const QString &key) {
        problems.append(
            QStringLiteral("setting \"%1\" has a value that cannot be used; the default is kept").arg(key));
    };
    auto readInt = [&](const QString &key, int &target, int minimum) {
        if (!o.contains(key))
            return;
        const int value = o.value(key).toInt(minimum - 1);
        value >= minimum ? void(target = value) : bad(key);
    };
    auto readBool = [&](const QString &key, bool &target) {
        if (!o.contains(key))
            return;
        o.value(key).isBool() ? void(target = o.value(key).toBool()) : bad(key);
    };
    readInt(SettingKeys::connections(), s.connections, 0);
    readInt(SettingKeys::maxAttempts(), s.maxAttempts, 1);
    readInt(SettingKeys::retryBaseDelayMs(), s.retryBaseDelayMs, 0);
    readBool(SettingKeys::notifyOnFinish(), s.notifyOnFinish);
    readBool(SettingKeys::notifyOnFailure(), s.notifyOnFailure);
    readBool(SettingKeys::startOnDrop(), s.startOnDrop);
    if (o.contains(SettingKeys::chunkSize())) {
        const QJsonValue value = o.value(SettingKeys::chunkSize());
        const std::optional<qint64> size = sizeValue(value);
        if (value.toString() == QLatin1String("auto"))
            s.chunkSizeAuto = true;
        else if (size && *size >= ChunkPlanner::MinChunkSize && *size <= ChunkPlanner::MaxChunkSize) {
            s.chunkSizeAuto = false;
            s.chunkSize = *size;
        } else {
            bad(SettingKeys::chunkSize());
        }
    }
    if (o.contains(SettingKeys::speedLimit())) {
        const std::optional<qint64> limit = sizeValue(o.value(SettingKeys::speedLimit()));
        limit &&*limit >= 0 ? void(s.speedLimitBytesPerSecond = *limit) : bad(SettingKeys::speedLimit());
    }
    if (o.contains(SettingKeys::onConflict())) {
        const std::optional<ConflictPolicy> policy =
            conflictPolicyFromName(o.value(SettingKeys::onConflict()).toString().toLatin1());
        policy ? void(s.onConflict = *policy) : bad(SettingKeys::onConflict());
    }
    if (o.contains(SettingKeys::destination()))
        s.destination = o.value(SettingKeys::destination()).toString();
    if (o.contains(SettingKeys::endpoints())) {
        const Parsed<QList<EndpointEntry>> entries =
            endpointsFromJson(o.value(SettingKeys::endpoints()).toArray());
        if (entries.value)
            s.endpoints = *entries.value;
        else
            problems.append(
                QStringLiteral("the endpoint list cannot be used (%1); it is left empty").arg(entries.error));
    }
    if (o.contains(SettingKeys::s3()))
        problems += S3TargetSettings::apply(o.value(SettingKeys::s3()).toObject(), s.s3);
    return problems;
}

QByteArray exportEndpoints(const QList<EndpointEntry> &entries, bool withTokens)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("endpoints"), endpointsToJson(entries, withTokens)}})
        .toJson();
}

Parsed<QList<EndpointEntry>> importEndpoints(const QByteArray &contents)
{
    const QJsonDocument document = QJsonDocument::fromJson(contents);
    if (document.isObject())
        return endpointsFromJson(document.object().value(QLatin1String("endpoints")).toArray());
    const Parsed<QList<Endpoint>> plain = EndpointParser::fromFileContents(contents);
    if (!plain.value)
        return Parsed<QList<EndpointEntry>>::fail(plain.error);
    QList<EndpointEntry> entries;
    for (const Endpoint &endpoint : *plain.value)
        entries.append({endpoint, true});
    return Parsed<QList<EndpointEntry>>::ok(entries);
}

} // namespace multilane::SettingsJson
