#include "ConcurrencyTuner.h"

#include "ByteSize.h"

#include <algorithm>
#include <cmath>

namespace multilane {

ConcurrencyTuner::ConcurrencyTuner(const Options &options)
    : m_options(options)
    , m_level(std::clamp(options.start, options.minimum, options.maximum))
    , m_rttMs(options.initialRttMs)
{
    describe();
}

int ConcurrencyTuner::startingLevel(double rttMs, int endpoints)
{
    const double perEndpoint = rttMs >= LanRttMs ? 8 * std::max(1.0, rttMs / 100) : 4;
    return int(std::ceil(perEndpoint)) * std::max(1, endpoints);
}

qint64 ConcurrencyTuner::windowMs() const
{
    // While searching, a round trip of goodput says enough (each connection has sent a window's
    // worth); once settled, longer windows keep the noise of a busy machine out of the decisions.
    if (m_phase == Phase::Ramp)
        return std::max<qint64>(m_options.minWindowMs / 2, qint64(m_rttMs));
    return std::max<qint64>(2 * m_options.minWindowMs + 100, qint64(2 * m_rttMs));
}

qint64 ConcurrencyTuner::settleMs() const
{
    // A new connection's handshake takes a round trip, and the first acknowledgements of its
    // bytes half another.
    // Where TCP itself spans the round trip (a real path, not a proxy next door), a new connection
    // also climbs out of slow start, doubling its window each round trip: a few more of them.
    return std::max<qint64>({50, qint64(1.5 * m_rttMs) + 10, qint64(4 * m_tcpRttMs)});
}

void ConcurrencyTuner::startWindow(const Sample &sample)
{
    m_window.startMs = sample.nowMs;
    m_window.bytes = sample.bytes;
    m_window.errors = sample.errors;
    m_window.overloads = sample.overloads;
    m_window.busySlotMs = sample.busySlotMs;
}

bool ConcurrencyTuner::wasBusy(const Sample &sample) const
{
    if (sample.busySlotMs < 0 || m_window.busySlotMs < 0)
        return true;
    const double possible = double(m_level) * double(sample.nowMs - m_window.startMs);
    return double(sample.busySlotMs - m_window.busySlotMs) >= m_options.busyToJudge * possible;
}

void ConcurrencyTuner::setLevel(int level)
{
    level = std::clamp(level, m_options.minimum, m_options.maximum);
    if (level == m_level)
        return;
    m_belowRatePerConnection = m_levelWindows > 0 ? m_levelRateSum / m_levelWindows / m_level : 0;
    m_levelRateSum = 0;
    m_levelWindows = 0;
    m_level = level;
    m_lookedAgain = false;
    m_changedAtMs = m_window.startMs;
    m_warmingRate = -1; // the first window at the new level starts the warm-up check
}

void ConcurrencyTuner::setMaximum(int maximum)
{
    m_options.maximum = std::max(m_options.minimum, maximum);
    if (m_level > m_options.maximum)
        m_level = m_options.maximum;
    else if (m_phase == Phase::Steady && m_level == m_plateauLevel && m_limit.isEmpty() && m_lastRate > 0 &&
             m_plateauLevel >= m_options.maximum)
        m_phase = Phase::Ramp; // it stopped at the old ceiling: there may be more to find
    describe();
}

void ConcurrencyTuner::setRoundTrip(double rttMs)
{
    if (rttMs <= 0)
        return;
    m_requestRttMs = rttMs;
    m_rttMs = std::max(m_rttMs, rttMs);
}

int ConcurrencyTuner::update(const Sample &sample)
{
    // The connections' own round trip, but never below the one a request took end to end (an
    // endpoint check): behind a proxy or an emulated link, TCP sees only the first hop.
    if (sample.rttMs > 0)
        m_rttMs = std::max(sample.rttMs, m_requestRttMs);
    if (sample.minRttMs > 0)
        m_tcpRttMs = sample.minRttMs;
    if (sample.minRttMs > 0)
        m_floorRttMs = sample.minRttMs;
    if (m_window.startMs < 0 || (m_lastRate < 0 && sample.bytes == 0)) {
        // The first window starts once bytes flow: before that the requests are still on their
        // way (a create, the first chunks, a round trip or more), and a window over that time
        // would undersell the first level, so the next step would look as if it paid in full.
        startWindow(sample);
        m_changedAtMs = sample.nowMs;
        return m_level;
    }
    // Errors are acted on at once; waiting out a window would only make more of them.
    const int errors = sample.errors - m_window.errors;
    if (errors > 0) {
        const bool overloaded = sample.overloads > m_window.overloads;
        const int before = m_level;
        startWindow(sample);
        setLevel(int(std::floor(before * (overloaded ? 0.5 : 0.75))));
        m_limit = overloaded ? QStringLiteral("the receivers asked to slow down")
                             : QStringLiteral("the receivers answered errors");
        m_phase = Phase::Steady;
        m_searchFromLevel = 0;
        m_researching = false;
        m_probing = false;
        m_backoffHold = 3;
        m_plateauLevel = m_level;
        m_descendTo = 0;
        m_lastRate = -1;
        describe();
        return m_level;
    }
    // Right after a change, new connections are still opening: a window that began before they
    // carry anything would undersell the level. It starts once they do.
    if (m_window.startMs < m_changedAtMs + settleMs()) {
        if (sample.nowMs >= m_changedAtMs + settleMs())
            startWindow(sample);
        return m_level;
    }
    if (sample.nowMs - m_window.startMs < windowMs())
        return m_level;
    if (!wasBusy(sample)) {
        // Too little work to keep the connections busy: a lower rate is the work running out (the
        // last chunks of an upload), not the level being wrong.
        startWindow(sample);
        return m_level;
    }
    const double rate = double(sample.bytes - m_window.bytes) / double(sample.nowMs - m_window.startMs);
    startWindow(sample);
    // New connections on a real path climb out of slow start for several round trips: while the
    // rate at this level still rises window after window, it is not this level's rate yet (for
    // at most 8 round trips: a link that is simply fast must not wait for ever).
    // The first level is held the same way on any path with a round trip: its first windows see
    // the upload's own start (chunks reaching the connections one round trip after another).
    const bool realPath = isRealPath();
    const bool firstLevel = m_lastRate < 0 && m_rttMs >= 10;
    const double warmRttMs = realPath ? m_tcpRttMs : m_rttMs;
    if (m_phase == Phase::Ramp && (realPath || firstLevel) &&
        (m_warmingRate < 0 || rate > m_warmingRate * 1.1) &&
        sample.nowMs - m_changedAtMs < settleMs() + qint64(8 * warmRttMs)) {
        m_warmingRate = rate;
        return m_level;
    }
    m_warmingRate = 0;
    m_levelRateSum += rate; // a window at this level's own rate, past its connections' start
    ++m_levelWindows;
    m_bestPerConnection = std::max(m_bestPerConnection, rate / m_level);
    if (m_phase == Phase::Ramp && isQueueStanding(sample))
        settleOnAFullQueue(rate);
    else if (m_phase == Phase::Ramp)
        judgeRamp(rate);
    else
        judgeSteady(rate, sample);
    describe();
    return m_level;
}

void ConcurrencyTuner::judgeRamp(double rate)
{
    const int level = m_level;
    if (m_lastRate > 0 && level > m_lastLevel) {
        // A second window at this level, when the first was unclear: the mean of the two.
        const double measured = m_confirming ? (rate + m_firstRate) / 2 : rate;
        const double expected = double(level) / double(m_lastLevel) - 1; // the proportional gain
        const double gain = measured / m_lastRate - 1;
        if (gain <= m_options.gainToKeep && !m_confirming && !m_lookedAgain) {
            // Nothing at all for more connections: either the level below filled the link, or
            // the new ones do not carry yet (a proxy in front connecting onwards, their first
            // chunks' checksums still being made), which at a short round trip outlasts the
            // settle time. The next window tells; this one is not judged.
            m_lookedAgain = true;
            return;
        }
        if (gain < m_options.keepRamping * expected) {
            // Clearly less than proportional: the plateau is between the two levels. Unclear (a
            // busy machine's windows wander by a tenth or more): look once more first.
            if (!m_confirming && gain > m_options.plateauGain * expected) {
                m_confirming = true;
                m_firstRate = rate;
                return;
            }
            m_confirming = false;
            settleAt(measured);
            return;
        }
    }
    if (m_lastRate > 0 && level > m_lastLevel)
        noteUnsharedBelow(); // the step paid in proportion
    m_confirming = false;
    m_lastLevel = level;
    m_lastRate = rate;
    if (level >= m_options.maximum) {
        m_phase = Phase::Steady;
        m_searchFromLevel = 0;
        m_researching = false;
        m_plateauRate = rate;
        m_plateauLevel = level;
        return;
    }
    // Slow windows (a long round trip) take bigger steps, so a long link is found as fast. A
    // search from a plateau already jumped to the level the link needs by what each connection
    // carries now: from there it is near, and a big step would overshoot into the queue.
    const double step = m_researching ? 1.5 : m_rttMs < 40 ? 2 : m_rttMs < 150 ? 4 : 8;
    setLevel(int(std::ceil(level * step)));
}

bool ConcurrencyTuner::seesThePath() const
{
    // Behind a proxy next door (an emulated link, a local TLS terminator) the connections' floor
    // is a fraction of a millisecond while a request's end-to-end round trip is the path's: their
    // round trip then rises with the proxy's and this machine's load, not with the path's queue.
    return m_floorRttMs > 0 && (m_requestRttMs <= 0 || m_floorRttMs >= 0.5 * m_requestRttMs);
}

bool ConcurrencyTuner::isQueueStanding(const Sample &sample) const
{
    return seesThePath() && sample.rttMs > m_options.queueingRtt * m_floorRttMs + 5;
}

void ConcurrencyTuner::settleOnAFullQueue(double rate)
{
    // A queue stands at the bottleneck once the rate at this level has stopped rising: the link is
    // busy all the time, so more connections would only lengthen the queue (or overflow a shallow
    // one and lose packets), and on real TCP a level reached by overshooting cannot simply be
    // stepped back from: the connections left carry the small windows they had while sharing the
    // link with many more, and goodput collapses until they grow again. Where a step up led here,
    // the two-point model still says which level between the two fills the link.
    if (m_lastRate > 0 && m_level > m_lastLevel) {
        settleAt(rate, true);
    } else {
        holdAsPlateau(rate, rate);
        // At the first level, the queue may be slow start's: new connections double their windows
        // until the queue overflows, and on a lossy path they then settle at far less than they
        // carried while it filled. The plateau figure is then not this level's own.
        m_plateauAtStartQueue = isRealPath();
    }
}

void ConcurrencyTuner::holdAsPlateau(double plateauRate, double rate)
{
    m_phase = Phase::Steady;
    m_searchFromLevel = 0;
    m_researching = false;
    m_lowWindows = 0;
    m_noiseLevel = 0; // the first steady window is compared with none
    m_plateauRate = plateauRate;
    m_lastLevel = m_level;
    m_lastRate = rate;
    m_plateauLevel = m_level;
    m_limit = QString();
    m_windowsSinceProbe = 0;
    m_paidProbes = 0;
    m_steadyWindowsHere = 0;
    m_plateauAtStartQueue = false;
}

void ConcurrencyTuner::descendAStep()
{
    // From a standing queue the way down ends where the queue is gone, so its steps are small:
    // a quarter could stop that far below the knee, and where loss rather than the queue holds
    // each connection back, a quarter fewer connections carry a quarter less.
    const double step = m_descentFromQueue ? 0.9 : 0.75;
    setLevel(std::max(m_descendTo, int(std::ceil(step * m_level))));
    m_plateauLevel = m_level;
}

void ConcurrencyTuner::settleAt(double rate, bool atAQueue)
{
    if (m_searchFromLevel > 0 && std::max(rate, m_lastRate) <= m_searchFromRate * (1 + noiseMargin())) {
        // A search that began at a slower window found no more than the plateau it left: the
        // link is as it was (a noisy window, or one plateau figure taken from short windows
        // that overstated it), and the level that carried it still does. Settling by the model
        // here would take the slow window for the rate per connection and keep a level above
        // the last each time: on a busy machine, 24 -> 36 -> 54 -> ... -> 192 on a link 24
        // already filled.
        const int from = m_searchFromLevel;
        holdAsPlateau(std::max(rate, m_lastRate), rate);
        setLevel(from);
        m_plateauLevel = m_level;
        m_returnedTo = from;
        return;
    }
    // Two points of goodput = min(n x p, U): p from the lower level, U from the upper one (or the
    // lower, when the step bought nothing): the level that fills the link is U / p, with a margin.
    const double perConnection = m_lastRate / m_lastLevel;
    const double uplink = std::max(rate, m_lastRate);
    const double gain = rate / m_lastRate - 1;
    // A step that bought next to nothing: the lower level already filled the link.
    const int fills =
        gain <= m_options.gainToKeep
            ? m_lastLevel
            : std::clamp(int(std::ceil(m_options.margin * uplink / perConnection)), m_lastLevel, m_level);
    if (gain > m_options.gainToKeep)
        noteUnsharedBelow(); // the step bought more (the model's own premise)
    holdAsPlateau(uplink, rate);
    // Where TCP itself spans the path, the connections kept after a step down carry the small
    // windows they had while sharing the link with many more, and grow them back only over many
    // round trips: a level far below would collapse goodput for a second or more, which the
    // next window would take for a link gone slow and search upwards again. So the way down is a
    // quarter at a time, a window at each step.
    m_descendTo = isRealPath() ? fills : 0;
    m_descentFromQueue = atAQueue && m_descendTo > 0;
    m_levelAbove = m_level;
    m_rateAbove = rate;
    if (m_descendTo > 0)
        descendAStep();
    else
        setLevel(fills);
    m_plateauLevel = m_level;
}

void ConcurrencyTuner::noteUnsharedBelow()
{
    // The level below left the link room, so what each of its connections carried, over all its
    // windows (one window moves too much on a lumpy link), was a connection's own rate.
    if (m_belowRatePerConnection <= 0)
        return;
    m_unsharedRateSum += m_belowRatePerConnection;
    ++m_unsharedLevels;
}

bool ConcurrencyTuner::hasRoomLeft() const
{
    // Where a queue stands, more connections would only lengthen it.
    if (m_queueing || m_unsharedLevels == 0 || m_level >= m_options.maximum)
        return false;
    const double unshared = m_unsharedRateSum / m_unsharedLevels;
    return m_plateauRate / m_level >= m_options.stillRoom * unshared;
}

double ConcurrencyTuner::noiseMargin() const
{
    // Twice the mean difference of two windows at one level: a change within it is the machine's.
    return std::max(m_options.gainToKeep, 2 * m_noise);
}

void ConcurrencyTuner::measureNoise(double rate)
{
    if (m_noiseLevel == m_level && m_noiseRate > 0 && rate > 0) {
        const double difference = std::abs(rate - m_noiseRate) / ((rate + m_noiseRate) / 2);
        m_noise = m_noise > 0 ? 0.8 * m_noise + 0.2 * difference : difference;
    }
    m_noiseLevel = m_level;
    m_noiseRate = rate;
}

void ConcurrencyTuner::judgeSteady(double rate, const Sample &sample)
{
    measureNoise(rate);
    if (m_backoffHold > 0) {
        // After backing off: hold a while, then climb back the way a ramp does.
        if (--m_backoffHold == 0) {
            m_phase = Phase::Ramp;
            m_lastLevel = m_level;
            m_lastRate = rate;
            setLevel(m_level + std::max(1, m_level / 2));
        }
        return;
    }
    if (m_descendTo > 0) {
        // On the way down to the level the model chose (a real path): goodput dips while the
        // connections kept grow their windows, which says nothing about the link. But where the
        // way down began at a standing queue and the queue is gone, the connections left no
        // longer offer more than the link carries: lower would only cost goodput where loss,
        // not a window, holds each connection back (the model's figure per connection came from
        // early windows, before their first losses).
        if (m_descentFromQueue && !isQueueStanding(sample)) {
            m_descendTo = 0;
            m_plateauLevel = m_level;
            return;
        }
        if (!m_descentFromQueue) {
            // The model's level came from the first windows, and where loss holds each connection
            // back they carried more than it now does (slow start ran past that rate): the way
            // down ends a step up where it has cost goodput. Two windows a level, as one may be
            // the kept connections still growing their windows, and a window of a lossy path
            // moves by as much as a step costs.
            if (m_levelWindows < 2)
                return;
            if (m_levelRateSum / m_levelWindows < m_rateAbove * (1 - m_options.wayDownCost)) {
                m_descendTo = 0;
                setLevel(m_levelAbove);
                m_plateauLevel = m_level;
                m_plateauRate = std::max(m_plateauRate, m_rateAbove);
                return;
            }
        }
        if (m_level == m_descendTo) { // the last step held too
            m_descendTo = 0;
            return;
        }
        // The rate to keep stays the one the way down began at: steps that each cost a little
        // less than the margin would otherwise add up to a real loss.
        m_levelAbove = m_level;
        descendAStep();
        if (m_descentFromQueue && m_level == m_descendTo)
            m_descendTo = 0;
        return;
    }
    if (m_probing) {
        m_probing = false;
        const bool up = m_level > m_probeFrom;
        // Against the window just before the step, not the running plateau: that one has a
        // memory, and a slow drift down in it would let step after step down seem to hold.
        const bool paid = rate > m_rateBeforeProbe * (1 + noiseMargin());
        const bool held = rate >= m_rateBeforeProbe * (1 - m_options.gainToKeep);
        if ((up && paid) || (!up && held)) {
            // Up and it paid: keep it and go on. Down and goodput held: fewer is as good.
            if (up && ++m_paidProbes >= 2) {
                // The plateau was put too low (a noisy window): search upwards again.
                m_phase = Phase::Ramp;
                m_searchFromLevel = m_probeFrom;
                m_searchFromRate = m_plateauRate;
                m_lastLevel = m_level;
                m_lastRate = rate;
                m_paidProbes = 0;
                setLevel(m_level + std::max(1, m_level / 2));
                return;
            }
            m_plateauRate = std::max(m_plateauRate, rate);
            m_plateauLevel = m_level;
            m_windowsSinceProbe = m_options.probeEveryWindows; // the next step the same way, at once
            m_probeDown = !up;
            m_descending = !up;
            if (!up && m_queueing)
                m_limit = QStringLiteral("more only filled a queue on the path");
        } else {
            m_paidProbes = 0;
            setLevel(m_probeFrom);
            m_windowsSinceProbe = -m_options.probeEveryWindows; // a longer wait before the next try
            m_probeDown = up; // the other way next time (if the connections are crowded)
            m_descending = false;
        }
        return;
    }
    // A plateau found at the first level's standing queue, and now the queue is gone while goodput
    // is short of it: on a bottleneck with a queue, a link carried in full keeps one standing, so
    // the link has room that these connections no longer fill (slow start ran past what loss now
    // holds each to).
    const bool drainedShort = m_plateauAtStartQueue && !isQueueStanding(sample) &&
                              rate < m_plateauRate * (1 - std::max(m_options.wayDownCost, noiseMargin()));
    if (drainedShort || rate < m_plateauRate * (1 - std::max(m_options.lossToRecheck, noiseMargin()))) {
        // As busy as before, but much slower, twice in a row (one such window is a busy
        // machine's as often as the link's): the link changed. Search again from here.
        if (++m_lowWindows < 2) {
            m_firstLowRate = rate;
            return;
        }
        searchAgain(rate, m_firstLowRate, !drainedShort);
        return;
    }
    m_lowWindows = 0;
    m_plateauRate = 0.8 * m_plateauRate + 0.2 * rate; // follows a link that drifts
    m_queueing = isQueueStanding(sample);
    if (++m_steadyWindowsHere >= 3 && hasRoomLeft()) {
        // The plateau was put too low, by windows that moved more than its margin covers: the
        // connections still each carry what one carried while the link had room. A step up from
        // here would pay about as little as the plateau is short, which noisy windows hide; what
        // each connection carries, averaged over the plateau's windows, does not.
        setLevel(m_level + std::max(1, int(std::ceil(m_options.roomStep * m_level))));
        m_plateauLevel = m_level;
        m_steadyWindowsHere = 0;
        m_windowsSinceProbe = 0;
        return;
    }
    if (++m_windowsSinceProbe < m_options.probeEveryWindows)
        return;
    m_windowsSinceProbe = 0;
    m_returnedTo = 0; // it held its plateau until the probe: the level is its own
    m_probeFrom = m_level;
    m_rateBeforeProbe = rate;
    ++m_probes;
    // Up, or down where the connections clearly share the uplink: each carries well below what one
    // carried at a lower level, so there are more than the link needs (a search that overshot,
    // its first windows undersold by slow start, comes down this way; at the knee a step down
    // would only cost goodput). A step down that held is followed by the next one only while the
    // connections are still crowded: judged on one window against the one before, a step that
    // cost a tenth passes as held on a noisy machine often enough to walk the level below what
    // the link needs. While the round trip is up and goodput is not, a queue is filling: down.
    const bool crowded = m_bestPerConnection > 0 && rate / m_level < m_options.crowded * m_bestPerConnection;
    const bool down =
        (((m_descending || m_probeDown) && crowded) || m_queueing) && m_level > m_options.minimum;
    if (down) {
        m_probing = true;
        setLevel(m_level - std::max(1, m_level / 10));
    } else if (m_level < m_options.maximum) {
        m_probing = true;
        setLevel(m_level + std::max(1, m_level / 10));
    }
}

void ConcurrencyTuner::searchAgain(double rate, double earlierRate, bool mayReturn)
{
    m_lowWindows = 0;
    m_phase = Phase::Ramp;
    // What one connection carried with room to spare was the old link's.
    m_unsharedRateSum = 0;
    m_unsharedLevels = 0;
    // A level the last search came back to, falling short again before it was even probed:
    // its plateau figure was not its own (a lossy path's first windows, before the losses
    // that now hold each connection back), and the next search must not return to it.
    const bool fellShortAgain = m_returnedTo == m_level;
    m_returnedTo = 0;
    m_researching = true;
    m_searchFromLevel = fellShortAgain || !mayReturn ? 0 : m_level;
    m_searchFromRate = m_plateauRate;
    m_lastLevel = m_level;
    m_lastRate = (rate + earlierRate) / 2;
    // What each connection carries now says how many the plateau needs: straight there
    // (half as many again at least), not a step at a time, each taking a window or more.
    const double needed = m_options.margin * m_plateauRate / (m_lastRate / m_level);
    m_plateauRate = m_lastRate;
    m_plateauAtStartQueue = false;
    setLevel(std::clamp(int(std::ceil(needed)), m_level + std::max(1, m_level / 2), 4 * m_level));
}

void ConcurrencyTuner::describe()
{
    const double perConnection = m_plateauRate > 0 ? m_plateauRate * 1000.0 / m_plateauLevel : 0;
    const QString count =
        m_level == 1 ? QStringLiteral("1 connection") : QStringLiteral("%1 connections").arg(m_level);
    if (m_phase == Phase::Ramp) {
        m_reason = count + QStringLiteral(": finding the level the link needs");
    } else if (!m_limit.isEmpty()) {
        m_reason = count + QStringLiteral(": ") + m_limit;
    } else if (m_level >= m_options.maximum) {
        // A window that carried nothing (connections all waiting for answers) gives no figure.
        m_reason = count + QStringLiteral(": the most the receivers allow");
        if (perConnection > 0)
            m_reason += QStringLiteral(" (%1 each)").arg(ByteSize::formatRate(perConnection));
    } else {
        m_reason = count + QStringLiteral(": %1 each, uplink full at %2")
                               .arg(ByteSize::formatRate(perConnection),
                                    ByteSize::formatRate(m_plateauRate * 1000.0));
    }
}

} // namespace multilane
