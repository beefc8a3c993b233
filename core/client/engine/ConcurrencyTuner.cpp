#include "ConcurrencyTuner.h"

#include <algorithm>

namespace multilane {

ConcurrencyTuner::ConcurrencyTuner(const Options &options)
    : m_options(options)
    , m_level(std::clamp(options.start, options.minimum, options.maximum))
{}

void ConcurrencyTuner::startWindow(const Sample &sample)
{
    m_windowStartMs = sample.nowMs;
    m_windowStartBytes = sample.bytes;
    m_windowStartErrors = sample.errors;
    m_windowStartBusySlotMs = sample.busySlotMs;
}

bool ConcurrencyTuner::wasBusy(const Sample &sample) const
{
    if (sample.busySlotMs < 0 || m_windowStartBusySlotMs < 0)
        return true;
    const double possible = double(m_level) * double(sample.nowMs - m_windowStartMs);
    return double(sample.busySlotMs - m_windowStartBusySlotMs) >= m_options.busyToJudge * possible;
}

int ConcurrencyTuner::update(const Sample &sample)
{
    const qint64 nowMs = sample.nowMs;
    if (m_windowStartMs < 0) {
        startWindow(sample);
        return m_level;
    }
    if (nowMs - m_windowStartMs < m_options.intervalMs)
        return m_level;
    const bool newErrors = sample.errors > m_windowStartErrors;
    if (m_changing && !newErrors) {
        // The window right after a change is left out: new connections spend it connecting and
        // on their first round trip, and judging the level by it made good steps look useless.
        m_changing = false;
        startWindow(sample);
        return m_level;
    }
    if (!newErrors && !wasBusy(sample)) {
        // Too little work to keep the connections busy: a lower rate is the work running out (the
        // last chunks of an upload), not the level being wrong. Stepping back there stretched the
        // tail: the last chunks queued behind fewer connections (link (a)'s mixed workload).
        startWindow(sample);
        return m_level;
    }
    m_changing = false;

    const double rate = double(sample.bytes - m_windowStartBytes) * 1000.0 / double(nowMs - m_windowStartMs);
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
    startWindow(sample);
    return m_level;
}

} // namespace multilane
