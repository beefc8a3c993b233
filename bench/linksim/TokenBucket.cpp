#include "TokenBucket.h"

#include <algorithm>
#include <cmath>

namespace multilane::linksim {

TokenBucket::TokenBucket(double bytesPerSecond, double burstBytes, TimePoint now)
    : m_rate(bytesPerSecond)
    , m_burst(std::max(burstBytes, 1.0))
    , m_catchUp(std::max(m_burst, bytesPerSecond * 0.100))
    , m_tokens(m_burst)
    , m_last(now)
{}

double TokenBucket::defaultBurst(double bytesPerSecond)
{
    return std::max(bytesPerSecond * 0.010, 4096.0);
}

void TokenBucket::refill(TimePoint now)
{
    if (now <= m_last)
        return;
    const double seconds = std::chrono::duration<double>(now - m_last).count();
    m_tokens = std::min(m_backlogged ? m_catchUp : m_burst, m_tokens + seconds * m_rate);
    m_last = now;
}

std::size_t TokenBucket::available(TimePoint now)
{
    refill(now);
    return m_tokens <= 0 ? 0 : static_cast<std::size_t>(m_tokens);
}

void TokenBucket::consume(std::size_t bytes)
{
    // May go (slightly) negative if a caller overdraws; the debt is paid back by waiting.
    m_tokens -= static_cast<double>(bytes);
}

TimePoint TokenBucket::readyAt(std::size_t bytes, TimePoint now)
{
    refill(now);
    const double wanted = std::min(static_cast<double>(bytes), m_burst);
    if (m_tokens >= wanted)
        return now;
    const double seconds = (wanted - m_tokens) / m_rate;
    return now + std::chrono::duration_cast<Nanoseconds>(std::chrono::duration<double>(seconds)) +
           std::chrono::microseconds(1); // so rounding never wakes us a hair too early
}

} // namespace multilane::linksim
