#pragma once

#include <QtGlobal>

namespace multilane {

// Finds how many connections the link wants: starts modestly, adds connections while goodput
// keeps rising, steps back when it falls or errors appear, never past the endpoints' caps. Fed
// the running total of acknowledged bytes and the error count with the time (passed in); asks
// for a new level at most once per interval, when the level it tried has been measured.
class ConcurrencyTuner {
public:
    struct Options {
        int start = 4;
        int minimum = 1;
        int maximum = 12;
        qint64 intervalMs = 750;
        double gainToGrow = 0.05;   // +5 % goodput: the extra connections paid off, add more
        double lossToShrink = 0.10; // -10 %: too many, step back
        int holdIntervals = 5;      // after stepping back, try growing again only this much later
    };

    explicit ConcurrencyTuner(const Options &options);

    int level() const { return m_level; }
    bool isSettled() const { return m_settled; }
    // Returns the level to use from now on (the same one most of the time).
    int update(qint64 nowMs, qint64 bytesAcknowledged, int errors);

private:
    Options m_options;
    int m_level;
    int m_previousLevel = 0;
    double m_previousRate = -1;
    qint64 m_windowStartMs = -1;
    qint64 m_windowStartBytes = 0;
    int m_windowStartErrors = 0;
    bool m_settled = false;
    bool m_slowStartDone = false;
    bool m_changing = false;  // the level just changed: the next window is a transition
    qint64 m_holdUntilMs = 0; // after an undo, stay put a while instead of oscillating
};

} // namespace multilane
