#pragma once

#include <QString>
#include <QtGlobal>
#include <optional>

namespace multilane::Units {

// The window's one unit convention: SI (decimal) multiples for sizes and rates alike, as network
// tools, link speeds and the command line's rates count them: "287.6 MB", "4.9 MB/s", "950 kB".
QString size(qint64 bytes);
QString rate(double bytesPerSecond);
// A time left: "0:42", "12:05", "1:02:03"; "—" when not known. Over 99 hours says "more than
// 99 h" (such a figure is a guess from a rate that will change).
QString duration(std::optional<qint64> seconds);

} // namespace multilane::Units
