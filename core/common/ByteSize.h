#pragma once

#include <QString>
#include <QtGlobal>
#include <optional>

namespace multilane::ByteSize {

// "8M", "512KiB", "1.5G", "1000000" -> bytes (binary multiples: K = 1024).
std::optional<qint64> parse(const QString &text);
// 1536 -> "1.5 KiB"
QString format(qint64 bytes);
// bytes per second -> "12.3 MB/s" (decimal, like network tools)
QString formatRate(double bytesPerSecond);

} // namespace multilane::ByteSize
