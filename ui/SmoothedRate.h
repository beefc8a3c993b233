#pragma once

#include <QList>
#include <QtGlobal>
#include <optional>

namespace multilane {

// The speed a person can read: bytes over the last few seconds (a moving window, as Transmission
// and qBittorrent average), unknown until a first full second is measured, and falling to zero
// when nothing comes. The window may be asked longer, up to what is kept. Time is passed in, so
// tests control the clock.
class SmoothedRate {
public:
    static constexpr qint64 DefaultWindowMs = 5000;
    static constexpr qint64 DefaultWarmUpMs = 1000;
    static constexpr qint64 LongestWindowMs = 30000;

    explicit SmoothedRate(qint64 warmUpMs = DefaultWarmUpMs, qint64 keptMs = LongestWindowMs);

    // totalBytes is a running total; one that goes back (a new count) starts the measurement over.
    void addSample(qint64 nowMs, qint64 totalBytes);
    // Paused, waiting, or measuring something else now: what was measured no longer applies.
    void reset() { m_samples.clear(); }
    // Bytes per second over the last windowMs (or as much as there is) up to nowMs; nullopt
    // before warmUpMs have been measured.
    std::optional<double> bytesPerSecond(qint64 nowMs, qint64 windowMs = DefaultWindowMs) const;
    // How long the samples kept reach back.
    qint64 historyMs() const
    {
        return m_samples.size() < 2 ? 0 : m_samples.last().timeMs - m_samples.first().timeMs;
    }

private:
    struct Sample {
        qint64 timeMs;
        qint64 bytes;
    };
    qint64 m_warmUpMs;
    qint64 m_keptMs;
    QList<Sample> m_samples;
};

} // namespace multilane
