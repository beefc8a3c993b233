#pragma once

#include "SmoothedRate.h"

#include <QHash>
#include <QList>
#include <optional>

namespace multilane {

// What the window shows of moving bytes, worked out from what is known to have arrived. The
// engine counts a byte as soon as it is handed to a socket; on a slow link the sockets' buffers
// hold megabytes of those for seconds. So:
// - the total speed is the rate of `delivered` (acknowledged by the receivers at the TCP level,
//   by the kernel's count), smoothed over a few seconds (SmoothedRate);
//   the window is at least twice the time the bytes in flight take to get through, so requests
//   that start and end together (many connections, big buffers on the path) read as the rate
//   they add up to, not as bursts; until the window no longer reaches back into the first two
//   seconds it stays at most a little above the measured uplink (more than that is the path's
//   buffers filling at the start);
// - what is done is what the receivers acknowledged plus what requests in flight handed on,
//   minus `queued` (handed on, not yet acknowledged), shared among the files in flight in
//   proportion to what each has in flight;
// - each moving file's speed is its share of the total speed, by how much each handed on over
//   the same window, so the rows add up to the status bar;
// - a time left follows that speed, and is unknown ("—") rather than a guess until then.
// Where the kernel cannot tell (delivered < 0) the speed comes from what was handed on.
class LiveFigures {
public:
    enum class Activity {
        Moving,   // uploading: bytes go out
        Pending,  // queued, preparing, verifying: will move or is almost done, no speed of its own
        Held,     // paused, or waiting for receivers: no speed, left out of the time left
        Finished, // done, skipped, failed, cancelled
    };
    struct RowInput {
        quint64 key = 0; // stable for the row's life
        qint64 size = 0;
        qint64 acknowledged = 0; // by the receiver, chunk by chunk
        qint64 inFlight = 0;     // handed to sockets by requests not answered yet
        Activity activity = Activity::Pending;
    };
    struct RowFigures {
        qint64 done = 0;
        std::optional<double> bytesPerSecond;
        std::optional<qint64> secondsLeft;
    };
    struct Totals {
        qint64 bytesTotal = 0;
        qint64 bytesDone = 0;
        std::optional<double> bytesPerSecond; // nullopt: nothing moving, or not measured yet
        std::optional<qint64> secondsLeft;
    };
    // What the kernel says of this process's connections to the endpoints in use (-1: unknown),
    // and the uplink as last measured (0: not measured).
    struct Delivery {
        qint64 delivered = -1;
        qint64 queued = -1;
        double uplinkBytesPerSecond = 0;
    };

    LiveFigures() = default;

    // One tick: every row of the list, in list order; rows not given are forgotten.
    void update(qint64 nowMs, const Delivery &delivery, const QList<RowInput> &rows);
    const QList<RowFigures> &rows() const { return m_figures; }
    const Totals &totals() const { return m_totals; }
    // The window the last speeds were averaged over.
    qint64 windowMs() const { return m_windowMs; }

private:
    struct RowState {
        SmoothedRate handedOn{0};
        qint64 counted = 0;     // handed on while moving, a running total for handedOn
        qint64 last = 0;        // acknowledged + in flight at the last tick
        bool wasMoving = false; // at the last tick
    };
    static double queuedShare(const Delivery &delivery, const QList<RowInput> &rows);
    // Brings the row's count of bytes handed on up to date; returns how many it handed on.
    qint64 follow(RowState &state, const RowInput &row, qint64 nowMs);
    // What is done of each row and in all; false when nothing moves.
    bool followRows(qint64 nowMs, const Delivery &delivery, const QList<RowInput> &rows, qint64 &inFlight);
    // The total speed, its window, and whether it is settled.
    void measureTotal(qint64 nowMs, const Delivery &delivery, qint64 inFlight);
    // Each moving row's part of it, and the times left.
    void shareAmongRows(qint64 nowMs, const QList<RowInput> &rows);

    // The window for the speeds: longer while the bytes in flight take long to get through.
    qint64 windowFor(qint64 nowMs, qint64 inFlight) const;

    SmoothedRate m_total;
    qint64 m_handedOnTotal = 0; // fallback count when the kernel cannot tell
    qint64 m_countAtStart = -1; // the count when movement (re)started; -1: not moving
    qint64 m_windowMs = SmoothedRate::DefaultWindowMs;
    bool m_settled = false; // measured past the first seconds since movement (re)started
    QHash<quint64, RowState> m_states;
    QList<RowFigures> m_figures;
    Totals m_totals;
};

} // namespace multilane
