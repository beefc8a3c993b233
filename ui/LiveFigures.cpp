#include "LiveFigures.h"

#include <cmath>
#include <utility>

namespace multilane {

static std::optional<qint64> secondsFor(qint64 remaining, const std::optional<double> &bytesPerSecond)
{
    if (remaining <= 0 || !bytesPerSecond || *bytesPerSecond < 1)
        return std::nullopt;
    return qint64(std::ceil(double(remaining) / *bytesPerSecond));
}

double LiveFigures::queuedShare(const Delivery &delivery, const QList<RowInput> &rows)
{
    qint64 inFlight = 0;
    for (const RowInput &row : rows)
        inFlight += row.inFlight;
    if (delivery.queued <= 0 || inFlight <= 0)
        return 0;
    return std::min(1.0, double(delivery.queued) / double(inFlight));
}

qint64 LiveFigures::follow(RowState &state, const RowInput &row, qint64 nowMs)
{
    const qint64 handedOn = row.acknowledged + row.inFlight;
    const bool moving = row.activity == Activity::Moving;
    qint64 delta = 0;
    // Only from one moving tick to the next: a file found whole on the receiver, or resumed
    // with chunks already there, jumps ahead without a byte sent.
    if (moving && state.wasMoving)
        delta = std::max<qint64>(0, handedOn - state.last);
    state.counted += delta;
    if (moving)
        state.handedOn.addSample(nowMs, state.counted);
    else
        state.handedOn.reset();
    state.last = handedOn;
    state.wasMoving = moving;
    return delta;
}

qint64 LiveFigures::windowFor(qint64 nowMs, qint64 inFlight) const
{
    const std::optional<double> longRun = m_total.bytesPerSecond(nowMs, SmoothedRate::LongestWindowMs);
    if (!longRun || *longRun <= 0)
        return SmoothedRate::LongestWindowMs; // nothing through yet: all there is
    const double throughMs = 1000.0 * double(inFlight) / *longRun;
    return std::clamp(qint64(2 * throughMs), SmoothedRate::DefaultWindowMs, SmoothedRate::LongestWindowMs);
}

void LiveFigures::update(qint64 nowMs, const Delivery &delivery, const QList<RowInput> &rows)
{
    m_figures = QList<RowFigures>(rows.size());
    m_totals = {};
    qint64 inFlight = 0;
    if (!followRows(nowMs, delivery, rows, inFlight)) {
        m_total.reset(); // paused or waiting: the next start is measured afresh
        m_countAtStart = -1;
        m_settled = false;
        return;
    }
    measureTotal(nowMs, delivery, inFlight);
    shareAmongRows(nowMs, rows);
}

bool LiveFigures::followRows(qint64 nowMs, const Delivery &delivery, const QList<RowInput> &rows,
                             qint64 &inFlight)
{
    const double queued = queuedShare(delivery, rows);
    // Only moving rows keep a state: one that stops hands nothing on and starts afresh when it
    // moves again (follow() counts from one moving tick to the next), so its state says nothing.
    // A window of a million files moves a few dozen at a time; every row's state, made anew each
    // tick, cost 190 bytes a file and a hash insert a file ten times a second.
    QHash<quint64, RowState> states;
    bool anyMoving = false;
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const RowInput &row = rows.at(i);
        if (row.activity == Activity::Moving) {
            RowState state = m_states.value(row.key);
            m_handedOnTotal += follow(state, row, nowMs);
            states.insert(row.key, state);
        }
        const qint64 done = row.acknowledged + qint64(std::llround(double(row.inFlight) * (1 - queued)));
        m_figures[i].done = std::clamp<qint64>(done, 0, row.size);
        m_totals.bytesTotal += row.size;
        m_totals.bytesDone += m_figures[i].done;
        anyMoving |= row.activity == Activity::Moving;
        inFlight += row.inFlight;
    }
    m_states = std::move(states); // rows no longer given or no longer moving are forgotten
    return anyMoving;
}

void LiveFigures::measureTotal(qint64 nowMs, const Delivery &delivery, qint64 inFlight)
{
    const qint64 count = delivery.delivered >= 0 ? delivery.delivered : m_handedOnTotal;
    if (m_countAtStart < 0)
        m_countAtStart = count;
    // Until something arrives the speed is not measured yet ("—"), and the wait before the first
    // byte (connections opening, buffers on the path filling) is no part of it.
    if (count == m_countAtStart) {
        m_total.reset();
        m_settled = false;
    }
    m_total.addSample(nowMs, count);
    m_windowMs = windowFor(nowMs, inFlight);
    if (count > m_countAtStart)
        m_totals.bytesPerSecond = m_total.bytesPerSecond(nowMs, m_windowMs);
    // Settled once the window no longer reaches back into the first seconds, when the buffers on
    // the path fill faster than any link; once there, it stays until the movement stops (a time
    // left that comes and goes helps nobody). Until then the speed is held near the uplink.
    constexpr qint64 FillingMs = 2000;
    constexpr double UplinkMargin = 1.05;
    m_settled = m_settled || m_total.historyMs() >= m_windowMs + FillingMs;
    if (!m_settled && m_totals.bytesPerSecond && delivery.uplinkBytesPerSecond > 0)
        m_totals.bytesPerSecond =
            std::min(*m_totals.bytesPerSecond, delivery.uplinkBytesPerSecond * UplinkMargin);
}

void LiveFigures::shareAmongRows(qint64 nowMs, const QList<RowInput> &rows)
{
    // Each moving row's share of the total, by what it handed on over the same window; while
    // nothing was handed on (the buffers drain), by what each has in flight; else evenly.
    QList<double> weights(rows.size(), 0.0);
    double weightSum = 0;
    for (int pass = 0; pass < 3 && weightSum <= 0; ++pass) {
        for (qsizetype i = 0; i < rows.size(); ++i) {
            if (rows.at(i).activity != Activity::Moving)
                continue;
            weights[i] = pass == 0
                             ? m_states[rows.at(i).key].handedOn.bytesPerSecond(nowMs, m_windowMs).value_or(0)
                         : pass == 1 ? double(rows.at(i).inFlight)
                                     : 1.0;
            weightSum += weights[i];
        }
    }
    qint64 remaining = 0;
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const RowInput &row = rows.at(i);
        RowFigures &figures = m_figures[i];
        if (row.activity == Activity::Moving || row.activity == Activity::Pending)
            remaining += row.size - figures.done;
        if (row.activity != Activity::Moving || !m_totals.bytesPerSecond)
            continue;
        figures.bytesPerSecond = *m_totals.bytesPerSecond * weights.at(i) / weightSum;
        if (m_settled) // before, a time left would be a guess from the first bursts
            figures.secondsLeft = secondsFor(row.size - figures.done, figures.bytesPerSecond);
    }
    if (m_settled)
        m_totals.secondsLeft = secondsFor(remaining, m_totals.bytesPerSecond);
}

} // namespace multilane
