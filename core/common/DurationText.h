#pragma once

#include <QString>
#include <chrono>
#include <optional>

// Durations on the receiver's command line: "90s", "30m", "12h", "7d", "2w"; a bare number is
// seconds. nullopt for anything else (negative, unknown unit, overflow).
namespace multilane::DurationText {

std::optional<std::chrono::seconds> parse(const QString &text);

} // namespace multilane::DurationText
