#include "Units.h"

#include <QCoreApplication>

namespace multilane::Units {

static QString scaled(double value, const char *const units[], int unitCount)
{
    int unit = 0;
    while (value >= 999.95 && unit < unitCount - 1) {
        value /= 1000.0;
        ++unit;
    }
    // Three significant digits at most, whole numbers for bytes: "4.92 MB", "49.2 MB", "492 MB".
    const int decimals = unit == 0 ? 0 : value < 9.995 ? 2 : value < 99.95 ? 1 : 0;
    return QStringLiteral("%1 %2").arg(value, 0, 'f', decimals).arg(QLatin1String(units[unit]));
}

QString size(qint64 bytes)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
    return scaled(double(bytes), units, 5);
}

QString rate(double bytesPerSecond)
{
    static const char *const units[] = {"B/s", "kB/s", "MB/s", "GB/s"};
    return scaled(std::max(0.0, bytesPerSecond), units, 4);
}

QString duration(std::optional<qint64> seconds)
{
    if (!seconds || *seconds < 0)
        return QStringLiteral("—");
    const qint64 s = *seconds;
    if (s >= 100 * 3600)
        return QCoreApplication::translate("Units", "more than 99 h");
    if (s >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(s / 3600)
            .arg(s / 60 % 60, 2, 10, QLatin1Char('0'))
            .arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

} // namespace multilane::Units
