#pragma once

#include <QString>
#include <chrono>
#include <optional>

// Durations as people type them on a command line or in a config file: a number, whole or with a
// decimal point, and an optional unit: ms, s, m, h, d or w (any case, spaces allowed around and
// between). A bare number is seconds: "90" is 90 s, "1.5h" 90 min, "250ms", "7d", "2w".
// This is the union of the receiver's grammar (d, w; any case) and the client's (decimals, ms), so
// every value either side took before is still taken. nullopt for anything else: empty, a sign,
// an unknown unit, a missing number, or more milliseconds than fit in 64 bits.
namespace multilane::DurationText {

// Fractions below a millisecond are dropped (truncated toward zero).
std::optional<std::chrono::milliseconds> parse(const QString &text);

} // namespace multilane::DurationText
