#pragma once

#include <QString>
#include <QtGlobal>

namespace multilane {

// Finds how many connections the link wants, fast, on any link: grows multiplicatively while each
// step pays about in proportion (per-connection limits: a capped or window-limited flow), and at
// the first step that pays much less, jumps to the level a two-point model of the link says
// fills it (goodput = min(level x rate per connection, uplink)), with a margin. Then it holds,
// tries a step up now and then (and takes one where each connection still carries what one carried
// while the link had room), backs off on errors (hard on overload), and steps down while the
// round trip rises without goodput rising (a bottleneck queue filling for nothing). Where TCP itself
// spans the path, a queue standing while it searches ends the search, and the way down from an
// overshoot goes a quarter a window (the connections kept must grow their windows) and ends a step
// up where it has cost goodput; a plateau found at the first level's queue (which slow start fills)
// is searched above again once that queue has drained short of it. It is fed running totals with
// the time (passed in), so tests drive it with any link they model; windows follow the round trip,
// and a window in which the connections were not kept busy (too little work: the start, the last
// chunks) says nothing about the level and is not judged.
class ConcurrencyTuner {
public:
    struct Options {
        int start = 4;
        int minimum = 1;
        int maximum = 12;
        qint64 minWindowMs = 200;   // a judged window is at least this long, and two round trips
        double initialRttMs = 50;   // until the connections report theirs
        double keepRamping = 0.7;   // a step that kept this much of its proportional gain: go on
        double plateauGain = 0.35;  // one that kept less than this: the plateau is below it
        double margin = 1.15;       // above the level the model says fills the link
        double gainToKeep = 0.03;   // a step up in steady state must bring this much to stay
        int probeEveryWindows = 5;  // in steady state, try a step up this often
        double lossToRecheck = 0.2; // busy but this much slower than the plateau: search again
        double busyToJudge = 0.85;  // a window is judged only when its connections were this busy
        double queueingRtt = 1.5;   // a round trip this many times its floor is a queue filling
        double crowded = 0.75;      // connections carrying less than this of the best: more than needed
        double stillRoom = 0.95;    // settled, each still carrying this much of what one did alone: too few
        double roomStep = 0.15;     // and the step up then
        // A way down that cost this much goodput went too far; a plateau found at the first
        // level's queue that this much goodput falls short of, the queue gone, left room.
        double wayDownCost = 0.05;
    };

    // Running totals at one moment.
    struct Sample {
        qint64 nowMs = 0;
        qint64 bytes = 0;       // delivered (or, where the transport cannot tell, handed on)
        int errors = 0;         // requests that failed
        qint64 busySlotMs = -1; // sum over time of the requests in flight; -1: unknown (always busy)
        int overloads = 0;      // of the errors, the servers' "slow down" (503, S3 SlowDown)
        double rttMs = 0;       // the connections' smoothed round trip now; 0: unknown
        double minRttMs = 0;    // the smallest round trip seen; 0: unknown
    };

    enum class Phase { Ramp, Steady };

    explicit ConcurrencyTuner(const Options &options);

    // A round trip this short is a LAN.
    static constexpr double LanRttMs = 2;
    // Where the search starts before anything is measured, for a path of this round trip (0:
    // unknown) to this many endpoints: a few connections per endpoint on a LAN, more across a
    // path, and above 100 ms more again in proportion: whether its window or loss holds a TCP
    // connection back, its rate falls as one over the round trip, so the count a link of a given
    // width needs grows with it, and a first level held for its first windows (several round
    // trips) costs most where the round trip is long.
    static int startingLevel(double rttMs, int endpoints);

    int level() const { return m_level; }
    Phase phase() const { return m_phase; }
    bool isSettled() const { return m_phase == Phase::Steady; }
    // It has judged a window (or backed off on an error): what it does now rests on measurements.
    bool hasJudged() const { return m_lastRate >= 0 || m_phase == Phase::Steady; }
    // Why this level, in words for the status bar and --json.
    QString reason() const { return m_reason; }
    // The goodput the current plateau was found at, bytes per second (0 before).
    double plateauRate() const { return m_plateauRate * 1000.0; }
    // Returns the level to use from now on (the same one most of the time).
    int update(const Sample &sample);
    // The receivers said how many connections they allow: the new ceiling.
    void setMaximum(int maximum);
    // A request's round trip measured end to end (the endpoint check's): a floor under what the
    // connections report.
    void setRoundTrip(double rttMs);

private:
    struct Window {
        qint64 startMs = -1;
        qint64 bytes = 0;
        int errors = 0;
        int overloads = 0;
        qint64 busySlotMs = 0;
    };
    void startWindow(const Sample &sample);
    bool wasBusy(const Sample &sample) const;
    qint64 windowMs() const;
    qint64 settleMs() const;
    void setLevel(int level);
    void judgeRamp(double rate);
    // The connections' own round trip spans the path a request takes (not only a first hop).
    bool seesThePath() const;
    // The round trip well above its floor: a queue stands at the bottleneck (only where the
    // connections see the path).
    bool isQueueStanding(const Sample &sample) const;
    void settleOnAFullQueue(double rate);
    void settleAt(double rate, bool atAQueue = false);
    // Steady from now on, at the level as it is (a settle may then move it).
    void holdAsPlateau(double plateauRate, double rate);
    // One step of a real path's way down to m_descendTo: a quarter of the level at most.
    void descendAStep();
    // Steady, but short of the plateau: search upwards again from here (returning to this level
    // only where `mayReturn` and the search finds no more than the plateau).
    void searchAgain(double rate, double earlierRate, bool mayReturn);
    // The connections' own round trip spans a path (not a proxy next door): real TCP's windows
    // and queues apply.
    bool isRealPath() const { return m_tcpRttMs >= 10; }
    void judgeSteady(double rate, const Sample &sample);
    // How much two steady windows at one level differ (a busy machine, a bursty link), and the
    // change in goodput a decision needs before it counts.
    void measureNoise(double rate);
    double noiseMargin() const;
    // Settled, and the connections each carry about what one carried while the link had room
    // (the mean over the levels below a step that paid, each level's over its windows): the link
    // has room left.
    bool hasRoomLeft() const;
    // A step up from the level below paid: what each of its connections carried is one's own rate.
    void noteUnsharedBelow();
    void describe();

    Options m_options;
    int m_level;
    Phase m_phase = Phase::Ramp;
    Window m_window;
    qint64 m_changedAtMs = 0;
    double m_rttMs;
    double m_requestRttMs = 0; // a request's round trip, end to end
    double m_tcpRttMs = 0;     // the connections' own, without queueing (their smallest)
    double m_floorRttMs = 0;
    // The last judged window: its level and rate (bytes per ms).
    int m_lastLevel = 0;
    double m_lastRate = -1;
    double m_plateauRate = 0;           // steady state: the goodput to hold
    int m_plateauLevel = 0;             // and the level it was found at
    int m_descendTo = 0;                // a real path's way down to the level the model chose, step by step
    bool m_descentFromQueue = false;    // that way down began at a standing queue
    int m_levelAbove = 0;               // on that way down: the level before the last step
    double m_rateAbove = 0;             // and the rate where it began
    bool m_plateauAtStartQueue = false; // the plateau is the first level's, found at a standing queue
    int m_windowsSinceProbe = 0;
    bool m_probing = false; // the current level is a trial step up (or down, for the queue)
    int m_probeFrom = 0;
    int m_backoffHold = 0;          // windows to wait after backing off before growing again
    int m_paidProbes = 0;           // steps up in a row that paid
    bool m_confirming = false;      // a second window at this level, the first being unclear
    bool m_lookedAgain = false;     // a step that bought nothing gets a second window before it is judged
    bool m_probeDown = false;       // the next steady-state step goes down
    bool m_queueing = false;        // the round trip is up on its floor
    double m_bestPerConnection = 0; // the most one connection carried in any judged window
    double m_rateBeforeProbe = 0;   // the window before a steady-state step
    int m_probes = 0;               // steady-state steps tried
    int m_lowWindows = 0;           // steady windows in a row much slower than the plateau
    double m_firstLowRate = 0;      // the first of them
    int m_searchFromLevel = 0;      // a search that began at slower windows: the level it left
    double m_searchFromRate = 0;    // and the plateau it held there
    int m_returnedTo = 0;           // the level such a search came back to, until it is probed
    bool m_researching = false;     // searching again from a plateau that fell short
    double m_noise = 0;             // mean relative difference of two steady windows at one level
    int m_noiseLevel = 0;           // the last steady window's level and rate
    double m_noiseRate = 0;
    bool m_descending = false;           // the last step down held: the next goes down too (if still crowded)
    double m_warmingRate = -1;           // the last window's rate while new connections warm up
    double m_firstRate = 0;              // the first window's rate then
    double m_levelRateSum = 0;           // the rates of the judged windows at this level
    int m_levelWindows = 0;              // and how many
    double m_belowRatePerConnection = 0; // the level before this one: its windows' mean rate per connection
    double m_unsharedRateSum = 0;        // rate per connection at the levels below a step that paid, summed
    int m_unsharedLevels = 0;            // and how many levels
    int m_steadyWindowsHere = 0; // steady windows since the plateau was set or the level last rose for room
    QString m_reason;
    QString m_limit; // what stopped the growth, for reason()
};

} // namespace multilane
