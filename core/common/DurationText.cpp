#include "DurationText.h"

#include <limits>

namespace multilane::DurationText {

std::optional<std::chrono::seconds> parse(const QString &text)
{
    const QString trimmed = text.trimmed().toLower();
    if (trimmed.isEmpty())
        return std::nullopt;
    qint64 unit = 1;
    QString digits = trimmed;
    switch (trimmed.back().unicode()) {
    case 's':
        unit = 1;
        break;
    case 'm':
        unit = 60;
        break;
    case 'h':
        unit = 3600;
        break;
    case 'd':
        unit = 24 * 3600;
        break;
    case 'w':
        unit = 7 * 24 * 3600;
        break;
    default:
        unit = 0;
        break;
    }
    if (unit != 0)
        digits.chop(1);
    else
        unit = 1;
    bool ok = false;
    const qint64 count = digits.toLongLong(&ok);
    if (!ok || count < 0 || digits.startsWith(QLatin1Char('+')) ||
        count > std::numeric_limits<qint64>::max() / unit / 1000) // room for milliseconds
        return std::nullopt;
    return std::chrono::seconds(count * unit);
}

} // namespace multilane::DurationText
