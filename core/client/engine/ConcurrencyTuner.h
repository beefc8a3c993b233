#pragma once

#include <QtGlobal>

namespace multilane {

// Finds how many connections the link wants: starts modestly, adds connections while goodput
// keeps rising, steps back when it falls or errors appear, never past the endpoints' caps. Fed
// running totals (bytes, errors, connection-time in use) with the time (passed in); asks for a
// new level at most once per interval, when the level it tried has been measured. A window in
// which the connections were not kept busy (too little work: the start, the last chunks) says
// nothing about the level and is not judged.
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
        double busyToJudge = 0.85;  // a window is judged only when its connections were this busy
    };

    // Running totals at one moment.
    struct Sample {
        qint64 nowMs = 0;
        qint64 bytes = 0; // sent or acknowledged, as long as it is always the same
        int errors = 0;
        qint64 busySlotMs = -1; // sum over time of the requests in flight; -1: unknown (always busy)
    };

    explicit ConcurrencyTuner(const Options &options);

    int level() const { return m_level; }
    bool isSettled() const { return m_settled; }
    // Returns the level to use from now on (the same one most of the time).
    int update(const Sample &sample);

private:
    void startWindow(const Sample &sample);
    bool wasBusy(const Sample &sample) const;

    Options m_options;
    int m_level;
    int m_previousLevel = 0;
    double m_previousRate = -1;
    qint64 m_windowStartMs = -1;
    qint64 m_windowStartBytes = 0;
    int m_windowStartErrors = 0;
    qint64 m_windowStartBusySlotMs = 0;
    bool m_settled = false;
    bool m_slowStartDone = false;
    bool m_changing = false;  // the level just changed: the next window is a transition
    qint64 m_holdUntilMs = 0; // after an undo, stay put a while instead of oscillating
};

} // namespace multilane
