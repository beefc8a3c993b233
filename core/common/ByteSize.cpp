#include "ByteSize.h"

#include <QRegularExpression>
#include <cmath>

namespace multilane::ByteSize {

std::optional<qint64> parse(const QString &text)
{
    static const QRegularExpression pattern(
        QStringLiteral("^\\s*(\\d+(?:\\.\\d+)?)\\s*([kmgt]?)(?:i?b)?\\s*$"),
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    const double number = match.captured(1).toDouble();
    const QString unit = match.captured(2).toLower();
    int shift = 0;
    if (unit == QLatin1String("k"))
        shift = 10;
    else if (unit == QLatin1String("m"))
        shift = 20;
    else if (unit == QLatin1String("g"))
        shift = 30;
    else if (unit == QLatin1String("t"))
        shift = 40;
    const double bytes = std::ldexp(number, shift);
    if (bytes > 9.0e18)
        return std::nullopt;
    return qint64(std::llround(bytes));
}

QString format(qint64 bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    if (unit == 0)
        return QStringLiteral("%1 B").arg(bytes);
    return QStringLiteral("%1 %2").arg(value, 0, 'f', value < 10 ? 2 : 1).arg(QLatin1String(units[unit]));
}

QString formatRate(double bytesPerSecond)
{
    static const char *const units[] = {"B/s", "kB/s", "MB/s", "GB/s"};
    double value = bytesPerSecond;
    int unit = 0;
    while (value >= 1000.0 && unit < 3) {
        value /= 1000.0;
        ++unit;
    }
    return QStringLiteral("%1 %2").arg(value, 0, 'f', unit == 0 ? 0 : 1).arg(QLatin1String(units[unit]));
}

} // namespace multilane::ByteSize
