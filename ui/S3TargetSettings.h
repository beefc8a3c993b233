#pragma once

#include "S3TargetSpec.h"

#include <QJsonObject>
#include <QList>
#include <QStringList>
#include <QUrl>

namespace multilane {

// The window's S3 target: when enabled, files go to this bucket instead of the receivers. The
// secret key lives in the TokenStore (the keyring) under secretKeyName(); it is held here in
// memory only, like the endpoints' tokens, and never written to the settings file.
struct S3TargetSettings {
    bool enabled = false;
    S3TargetSpec target;     // bucket URL, region, addressing, profile
    QList<QUrl> gateways;    // none: the profile's endpoint_url, else AWS's for the region
    QString accessKeyId;     // empty: keys as aws-cli finds them (the profile, the environment)
    QString secretAccessKey; // from the keyring, with accessKeyId

    bool operator==(const S3TargetSettings &other) const = default;
    QString secretKeyName() const { return QStringLiteral("s3:") + accessKeyId; }

    QJsonObject toJson() const; // without the secret
    // The keys `object` has over `settings`; returns what could not be used, in words.
    static QStringList apply(const QJsonObject &object, S3TargetSettings &settings);
};

} // namespace multilane
