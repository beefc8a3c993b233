#include "RateMeter.h"

namespace multilane {

RateMeter::RateMeter(qint64 windowMs)
    : m_windowMs(windowMs)
{}

void RateMeter::addSample(qint64 nowMs, qint64 totalBytes)
{
    m_samples.append({nowMs, totalBytes});
    // Keep one sample older than the window, so the rate spans the whole window.
    while (m_samples.size() > 2 && m_samples.at(1).timeMs <= nowMs - m_windowMs)
        m_samples.removeFirst();
}

double RateMeter::bytesPerSecond(qint64 nowMs) const
{
    if (m_samples.size() < 2)
        return 0.0;
    const Sample &first = m_samples.first();
    const Sample &last = m_samples.last();
    const qint64 span = std::max(nowMs, last.timeMs) - first.timeMs;
    if (span <= 0)
        return 0.0;
    return double(last.bytes - first.bytes) * 1000.0 / double(span);
}

} // namespace multilane
