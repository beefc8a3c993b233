#pragma once

#include <QList>
#include <QtGlobal>

namespace multilane {

// The speed of the last minutes, one sample per second at most, for the graph. Time is passed
// in, so tests control it.
class SpeedHistory {
public:
    explicit SpeedHistory(qint64 spanMs = 3 * 60 * 1000, qint64 stepMs = 1000);

    // Records the speed at nowMs; a sample closer than one step to the last replaces it (the
    // newest smoothed figure stands for its second; keeping the highest would draw every blip).
    void add(qint64 nowMs, double bytesPerSecond);

    struct Sample {
        qint64 timeMs;
        double bytesPerSecond;
    };
    const QList<Sample> &samples() const { return m_samples; }
    qint64 spanMs() const { return m_spanMs; }
    double peak() const;

private:
    qint64 m_spanMs;
    qint64 m_stepMs;
    QList<Sample> m_samples;
};

} // namespace multilane
