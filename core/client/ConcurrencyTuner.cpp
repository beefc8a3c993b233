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

    const double rate =
        double(bytesAcknowledged - m_windowStartBytes) * 1000.0 / double(nowMs - m_windowStartMs);
    const bool newErrors = errors > m_windowStartErrors;
    const int level = m_level;
    if (newErrors) {
        // Errors: the receivers or the path are overloaded; back off hard.
        m_level = std::max(m_options.minimum, m_level / 2);
    } else if (nowMs >= m_holdUntilMs &&
               (m_previousRate < 0 || rate > m_previousRate * (1 + m_options.gainToGrow))) {
        // The last step paid (or this is the first measurement): try more, faster while small.
        m_level = std::min(m_options.maximum, m_level + std::max(1, m_level / 2));
    } else if (rate < m_previousRate * (1 - m_options.lossToShrink) && m_previousLevel > 0) {
        m_level = std::max(m_options.minimum, m_previousLevel); // the last step hurt: undo it
        m_settled = true;
        m_holdUntilMs = nowMs + m_options.holdIntervals * m_options.intervalMs;
    } else {
        m_settled = true; // flat: more connections do not help, keep what we have
    }
    m_previousLevel = level;
    m_previousRate = rate;
    m_windowStartMs = nowMs;
    m_windowStartBytes = bytesAcknowledged;
    m_windowStartErrors = errors;
    return m_level;
}

} // namespace multilane
