#pragma once

#include <QtGlobal>

namespace multilane {

// --limit-rate: a token bucket at request granularity. A request may start while the bucket is
// not empty and then takes its whole size out of it (the bucket may go negative), so over any
// long window the bytes started stay within one request of rate x time. Chunks are kept small
// against the rate (see maxChunkFor) so that error stays small. Time is passed in.
class RateLimiter {
public:
    explicit RateLimiter(double bytesPerSecond = 0);

    bool isLimited() const { return m_rate > 0; }
    double rate() const { return m_rate; }
    bool mayStart(qint64 nowMs);
    void consume(qint64 bytes, qint64 nowMs);
    // How long until mayStart() turns true (0 if it already is).
    qint64 msUntilAllowed(qint64 nowMs);
    // The largest chunk that keeps a 10 s average within ~2.5 % of the limit.
    qint64 maxChunkFor() const;

private:
    void refill(qint64 nowMs);

    double m_rate;
    double m_tokens;
    qint64 m_lastMs = -1;
};

} // namespace multilane
