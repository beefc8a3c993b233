#include "SmoothedRate.h"

#include <algorithm>

namespace multilane {

SmoothedRate::SmoothedRate(qint64 warmUpMs, qint64 keptMs)
    : m_warmUpMs(warmUpMs)
    , m_keptMs(keptMs)
{}

void SmoothedRate::addSample(qint64 nowMs, qint64 totalBytes)
{
    if (!m_samples.isEmpty() && (totalBytes < m_samples.last().bytes || nowMs < m_samples.last().timeMs))
        m_samples.clear();
    m_samples.append({nowMs, totalBytes});
    // One sample at or before the longest window's start stays, so a rate can span all of it.
    while (m_samples.size() > 2 && m_samples.at(1).timeMs <= nowMs - m_keptMs)
        m_samples.removeFirst();
}

std::optional<double> SmoothedRate::bytesPerSecond(qint64 nowMs, qint64 windowMs) const
{
    if (m_samples.size() < 2 || m_samples.last().timeMs - m_samples.first().timeMs < m_warmUpMs)
        return std::nullopt;
    // Up to now, not to the last sample: when the samples stop coming the speed falls, and once
    // the whole window has passed without one it is zero.
    const Sample &last = m_samples.last();
    const qint64 end = std::max(nowMs, last.timeMs);
    if (end - last.timeMs >= windowMs)
        return 0.0;
    const qint64 start = std::max(m_samples.first().timeMs, end - windowMs);
    // The count at `start`, between the two samples around it.
    const auto after = std::lower_bound(m_samples.cbegin(), m_samples.cend(), start,
                                        [](const Sample &s, qint64 t) { return s.timeMs < t; });
    double bytesAtStart = double(after->bytes);
    if (after != m_samples.cbegin() && after->timeMs > start) {
        const Sample &before = *(after - 1);
        const double share = double(start - before.timeMs) / double(after->timeMs - before.timeMs);
        bytesAtStart = double(before.bytes) + share * double(after->bytes - before.bytes);
    }
    if (end <= start)
        return std::nullopt;
    return std::max(0.0, double(last.bytes) - bytesAtStart) * 1000.0 / double(end - start);
}

} // namespace multilane
