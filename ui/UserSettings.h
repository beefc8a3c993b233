#pragma once

#include "ChunkPlanner.h"
#include "Endpoint.h"
#include "ReceiverApi.h"
#include "S3TargetSettings.h"

#include <QList>
#include <QString>

namespace multilane {

// One endpoint as the settings hold it: what the engine needs, plus whether to use it.
struct EndpointEntry {
    Endpoint endpoint;
    bool enabled = true;

    bool operator==(const EndpointEntry &other) const
    {
        return endpoint.url == other.endpoint.url && endpoint.token == other.endpoint.token &&
               endpoint.weight == other.endpoint.weight &&
               endpoint.maxConnections == other.endpoint.maxConnections &&
               endpoint.caFile == other.endpoint.caFile && endpoint.pinSha256 == other.endpoint.pinSha256 &&
               enabled == other.enabled;
    }
};

// Every user setting with its default, in one place. SettingsStore reads and writes it; the
// names in SettingKeys are the keys of the files and of the admin's lock list.
struct UserSettings {
    int connections = 0; // 0: automatic (the connection tuner, as on the command line)
    bool chunkSizeAuto = true;
    qint64 chunkSize = ChunkPlanner::DefaultChunkSize;
    qint64 speedLimitBytesPerSecond = 0; // 0: no limit
    int maxAttempts = 6;
    int retryBaseDelayMs = 500;
    bool notifyOnFinish = true;
    bool notifyOnFailure = true;
    bool startOnDrop = true; // false: dropped files wait, paused, until started
    ConflictPolicy onConflict = ConflictPolicy::Rename;
    QString destination; // prefix below the receiver's storage folder, '/'-separated
    QList<EndpointEntry> endpoints;
    S3TargetSettings s3; // enabled: files go to this bucket instead of the endpoints

    QList<Endpoint> enabledEndpoints() const
    {
        QList<Endpoint> result;
        for (const EndpointEntry &entry : endpoints) {
            if (entry.enabled)
                result.append(entry.endpoint);
        }
        return result;
    }
};

namespace SettingKeys {
inline QString connections()
{
    return QStringLiteral("connections");
}
inline QString chunkSize()
{
    return QStringLiteral("chunkSize");
}
inline QString speedLimit()
{
    return QStringLiteral("speedLimit");
}
inline QString maxAttempts()
{
    return QStringLiteral("maxAttempts");
}
inline QString retryBaseDelayMs()
{
    return QStringLiteral("retryBaseDelayMs");
}
inline QString notifyOnFinish()
{
    return QStringLiteral("notifyOnFinish");
}
inline QString notifyOnFailure()
{
    return QStringLiteral("notifyOnFailure");
}
inline QString startOnDrop()
{
    return QStringLiteral("startOnDrop");
}
inline QString onConflict()
{
    return QStringLiteral("onConflict");
}
inline QString destination()
{
    return QStringLiteral("destination");
}
inline QString endpoints()
{
    return QStringLiteral("endpoints");
}
inline QString s3()
{
    return QStringLiteral("s3");
}
} // namespace SettingKeys

} // namespace multilane
