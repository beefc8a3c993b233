#include "DurationText.h"

#include <QRegularExpression>
#include <QtNumeric>

namespace multilane::DurationText {

namespace {

// Fraction digits beyond this change the result by less than a millisecond per week of unit.
constexpr qsizetype FractionDigits = 9;
constexpr qint64 FractionScale = 1000000000; // 10^FractionDigits

std::optional<qint64> unitMilliseconds(const QString &unit)
{
    if (unit.isEmpty() || unit == u"s")
        return 1000;
    if (unit == u"ms")
        return 1;
    if (unit == u"m")
        return 60 * 1000;
    if (unit == u"h")
        return 3600 * 1000;
    if (unit == u"d")
        return 24 * 3600 * 1000;
    if (unit == u"w")
        return qint64(7) * 24 * 3600 * 1000;
    return std::nullopt;
}

} // namespace

std::optional<std::chrono::milliseconds> parse(const QString &text)
{
    // Decimal arithmetic on the digits rather than a double, so "1.001s" is 1001 ms, not 1000.
    static const QRegularExpression pattern(QStringLiteral("^\\s*([0-9]+)(?:\\.([0-9]+))?\\s*([a-z]*)\\s*$"),
                                            QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch())
        return std::nullopt;
    const auto unit = unitMilliseconds(match.captured(3).toLower());
    if (!unit)
        return std::nullopt;
    bool ok = false;
    const qint64 whole = match.captured(1).toLongLong(&ok);
    qint64 milliseconds = 0;
    if (!ok || qMulOverflow(whole, *unit, &milliseconds))
        return std::nullopt;
    QString fraction = match.captured(2).left(FractionDigits);
    fraction = fraction.leftJustified(FractionDigits, u'0');
    const qint64 fractionMilliseconds = fraction.toLongLong() * *unit / FractionScale;
    if (qAddOverflow(milliseconds, fractionMilliseconds, &milliseconds))
        return std::nullopt;
    return std::chrono::milliseconds(milliseconds);
}

} // namespace multilane::DurationText
