#include "ChaosProfile.h"

#include <QRandomGenerator>

namespace {

qint64 fromEnvironment(const char *name, qint64 fallback)
{
    bool ok = false;
    const qint64 value = qEnvironmentVariable(name).toLongLong(&ok);
    return ok ? value : fallback;
}

} // namespace

ChaosProfile ChaosProfile::fromEnvironment()
{
    // Issue #14's run, and one bounded for the suite: a link slow enough that twelve kills land
    // mid-transfer, data enough that the upload outlasts them.
    static const ChaosProfile bench{.name = QStringLiteral("bench"),
                                    .bigFileBytes = qint64(400) << 20,
                                    .smallFiles = 150,
                                    .smallFileMaxBytes = 512 * 1024,
                                    .linkBytesPerSecond = 50e6,
                                    .rttMs = 10,
                                    .rounds = 12,
                                    .roundMinMs = 400,
                                    .roundMaxMs = 2000,
                                    .fallbackMs = 3000,
                                    .timeoutMs = 600000};
    static const ChaosProfile ci{.name = QStringLiteral("ci"),
                                 .bigFileBytes = qint64(96) << 20,
                                 .mediumFiles = 3,
                                 .smallFiles = 60,
                                 .smallFileMaxBytes = 256 * 1024,
                                 .linkBytesPerSecond = 20e6,
                                 .rttMs = 10,
                                 .rounds = 12,
                                 .roundMinMs = 150,
                                 .roundMaxMs = 700,
                                 .fallbackMs = 1500,
                                 .timeoutMs = 150000};
    ChaosProfile profile = qEnvironmentVariable("MULTILANE_CHAOS") == QLatin1String("bench") ? bench : ci;
    profile.seed =
        quint32(::fromEnvironment("MULTILANE_CHAOS_SEED", QRandomGenerator::global()->bounded(1 << 30)));
    profile.linkBytesPerSecond =
        double(::fromEnvironment("MULTILANE_CHAOS_RATE", qint64(profile.linkBytesPerSecond)));
    profile.rttMs = int(::fromEnvironment("MULTILANE_CHAOS_RTT_MS", profile.rttMs));
    profile.rounds = int(::fromEnvironment("MULTILANE_CHAOS_ROUNDS", profile.rounds));
    profile.bigFileBytes = ::fromEnvironment("MULTILANE_CHAOS_BIG", profile.bigFileBytes);
    profile.smallFiles = int(::fromEnvironment("MULTILANE_CHAOS_SMALL", profile.smallFiles));
    return profile;
}

QString ChaosProfile::describe() const
{
    return QStringLiteral("profile %1, seed %2: %3 MiB + %4 medium + %5 small files, link %6 MB/s RTT %7 ms, "
                          "%8 kills")
        .arg(name)
        .arg(seed)
        .arg(bigFileBytes >> 20)
        .arg(mediumFiles)
        .arg(smallFiles)
        .arg(linkBytesPerSecond / 1e6, 0, 'f', 1)
        .arg(rttMs)
        .arg(rounds);
}
