#pragma once

#include "UserSettings.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

namespace multilane::SettingsJson {

// The settings as one JSON object; tokens are left out (they live in the TokenStore).
QJsonObject toJson(const UserSettings &settings);
// Sets the keys `object` has, leaves the others; returns one line per value it could not use.
QStringList apply(const QJsonObject &object, UserSettings &settings);

// The endpoints file `multilane --endpoints-file` reads, plus "enabled" (which it ignores).
QByteArray exportEndpoints(const QList<EndpointEntry> &entries, bool withTokens);
// Reads that file (or a plain list of URLs); a value or the reason it cannot be used.
Parsed<QList<EndpointEntry>> importEndpoints(const QByteArray &contents);

} // namespace multilane::SettingsJson
