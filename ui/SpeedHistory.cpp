#include "SpeedHistory.h"

#include <algorithm>

namespace multilane {

SpeedHistory::SpeedHistory(qint64 spanMs, qint64 stepMs)
    : m_spanMs(spanMs)
    , m_stepMs(stepMs)
{}

void SpeedHistory::add(qint64 nowMs, double bytesPerSecond)
{
    if (!m_samples.isEmpty() && nowMs - m_samples.last().timeMs < m_stepMs) {
        m_samples.last().bytesPerSecond = bytesPerSecond;
    } else {
        m_samples.append({nowMs, bytesPerSecond});
    }
    while (!m_samples.isEmpty() && m_samples.first().timeMs < nowMs - m_spanMs)
        m_samples.removeFirst();
}

double SpeedHistory::peak() const
{
    double peak = 0;
    for (const Sample &sample : m_samples)
        peak = std::max(peak, sample.bytesPerSecond);
    return peak;
}

} // namespace multilane
