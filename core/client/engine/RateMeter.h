#pragma once

#include <QList>
#include <QtGlobal>

namespace multilane {

// Speed over a sliding window. Time is passed in, so tests control the clock.
class RateMeter {
public:
    explicit RateMeter(qint64 windowMs = 3000);

    // totalBytes is a running total (monotonic); nowMs any monotonic clock.
    void addSample(qint64 nowMs, qint64 totalBytes);
    double bytesPerSecond(qint64 nowMs) const;

private:
    struct Sample {
        qint64 timeMs;
        qint64 bytes;
    };
    qint64 m_windowMs;
    QList<Sample> m_samples;
};

} // namespace multilane
