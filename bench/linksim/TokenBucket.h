#pragma once

#include "Clock.h"

#include <cstddef>

namespace multilane::linksim {

// A token bucket: bytes may pass at `rate` per second on average, with at most `burst` bytes at
// once after an idle spell. Time is passed in, never read, so the arithmetic is testable.
class TokenBucket {
public:
    TokenBucket(double bytesPerSecond, double burstBytes, TimePoint now);

    // The burst we use for a rate: 10 ms worth, but never below 4 KiB so reads stay efficient.
    static double defaultBurst(double bytesPerSecond);

    double rate() const { return m_rate; }
    double burst() const { return m_burst; }

    // Whether the caller has bytes waiting for tokens. While it has, tokens keep accruing up to
    // 100 ms worth instead of the burst: a wake-up that comes late (a loaded machine) then sends
    // what the link would have sent meanwhile, instead of losing it. Idle, the burst is the cap.
    void setBacklogged(bool backlogged) { m_backlogged = backlogged; }

    // Whole bytes that may pass at `now`.
    std::size_t available(TimePoint now);
    void consume(std::size_t bytes);
    // The earliest time at which `bytes` (capped at the burst) will be available.
    TimePoint readyAt(std::size_t bytes, TimePoint now);

private:
    void refill(TimePoint now);

    double m_rate;
    double m_burst;
    double m_catchUp;
    double m_tokens;
    bool m_backlogged = false;
    TimePoint m_last;
};

} // namespace multilane::linksim
