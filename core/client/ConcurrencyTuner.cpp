#include "ConcurrencyTuner.h"

#include <algorithm>

namespace multilane {

ConcurrencyTuner::ConcurrencyTuner(const Options &options)
    : m_options(options)
    , m_level(std::clamp(options.start, options.minimum, options.maximum))
{}

int ConcurrencyTuner::update(qint64 nowMs, qint64 bytesAcknowledged, int errors)
{
    if (m_windowStartMs < 0) {
        m_windowStartMs = nowMs;
        m_windowStartBytes = bytesAcknowledged;
        m_windowStartErrors = errors;
        return m_level;
    }
    if (nowMs - m_windowStartMs < m_options.intervalMs)
        return m_level;
    if (m_changing && errors == m_windowStartErrors) {
        // The window right after a change is left out: new connections spend it connecting and
        // on their first round trip, and judging the level by it made good steps look useless.
        m_changing = false;
        m_windowStartMs = nowMs;
        m_windowStartBytes = bytesAcknowledged;
        return m_level;
    }
    m_changing = false;

    const double rate =
        double(bytesAcknowledged - m_windowStartBytes) * 1000.0 / double(nowMs - m_windowStartMs);
    const bool newErrors = errors > m_windowStartErrors;
    const bool grewLastTime = m_previousLevel > 0 && m_level > m_previousLevel;
    const int level = m_level;
    if (newErrors) {
        // Errors: the receivers or the path are overloaded; back off hard.
        m_level = std::max(m_options.minimum, m_level / 2);
        m_slowStartDone = true;
    } else if (m_previousRate < 0 || (nowMs >= m_holdUntilMs && !grewLastTime) ||
               (grewLastTime && rate > m_previousRate * (1 + m_options.gainToGrow))) {
        // First measurement, a paid-off step, or time to probe again: more connections. Like TCP,
        // double at first (short uploads must find the level fast), then grow by a quarter.
        m_level =
            std::min(m_options.maximum, m_slowStartDone ? m_level + std::max(1, m_level / 4) : m_level * 2);
    } else if (grewLastTime) {
        // The last step did not pay: go back to the smallest level that gave this rate.
        m_level = std::max(m_options.minimum, m_previousLevel);
        m_slowStartDone = true;
        m_settled = true;
        m_holdUntilMs = nowMs + m_options.holdIntervals * m_options.intervalMs;
    } else if (rate < m_previousRate * (1 - m_options.lossToShrink) && m_level > m_options.minimum) {
        m_level = std::max(m_options.minimum, m_level - std::max(1, m_level / 4)); // the link got worse
    }
    m_changing = m_level != level;
    m_previousLevel = level;
    m_previousRate = rate;
    m_windowStartMs = nowMs;
    m_windowStartBytes = bytesAcknowledged;
    m_windowStartErrors = errors;
    return m_level;
}

} // namespace multilane
