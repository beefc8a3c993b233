#include "S3TargetSettings.h"

#include <QJsonArray>

namespace multilane {

QJsonObject S3TargetSettings::toJson() const
{
    QJsonArray urls;
    for (const QUrl &gateway : gateways)
        urls.append(gateway.toString());
    return {{QStringLiteral("enabled"), enabled},
            {QStringLiteral("url"), target.url},
            {QStringLiteral("region"), target.region},
            {QStringLiteral("addressing"), s3AddressingName(target.addressing)},
            {QStringLiteral("profile"), target.profile},
            {QStringLiteral("gateways"), urls},
            {QStringLiteral("accessKeyId"), accessKeyId}};
}

QStringList S3TargetSettings::apply(const QJsonObject &object, S3TargetSettings &settings)
{
    QStringList problems;
    S3TargetSettings read = settings;
    read.enabled = object.value(QLatin1String("enabled")).toBool(settings.enabled);
    read.target.url = object.value(QLatin1String("url")).toString(settings.target.url);
    read.target.region = object.value(QLatin1String("region")).toString(settings.target.region);
    read.target.profile = object.value(QLatin1String("profile")).toString(settings.target.profile);
    read.accessKeyId = object.value(QLatin1String("accessKeyId")).toString(settings.accessKeyId);
    if (object.contains(QLatin1String("addressing"))) {
        const auto addressing = s3AddressingFromName(object.value(QLatin1String("addressing")).toString());
        if (addressing)
            read.target.addressing = *addressing;
        else
            problems.append(
                QStringLiteral("setting \"s3.addressing\" takes path, virtual or auto; auto is kept"));
    }
    if (object.contains(QLatin1String("gateways"))) {
        read.gateways.clear();
        for (const QJsonValue &value : object.value(QLatin1String("gateways")).toArray()) {
            const QUrl url(value.toString(), QUrl::StrictMode);
            if (url.isValid() && !url.host().isEmpty())
                read.gateways.append(url);
            else
                problems.append(
                    QStringLiteral("setting \"s3.gateways\" has '%1', which is not a URL; it is left out")
                        .arg(value.toString()));
        }
    }
    if (read.accessKeyId != settings.accessKeyId)
        read.secretAccessKey.clear(); // another key's secret is not this one's
    settings = read;
    return problems;
}

} // namespace multilane
