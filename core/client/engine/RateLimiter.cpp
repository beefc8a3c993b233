#include "RateLimiter.h"

#include <algorithm>
#include <cmath>

namespace multilane {

RateLimiter::RateLimiter(double bytesPerSecond)
    : m_rate(std::max(0.0, bytesPerSecond))
    , m_tokens(1) // the first request may start at once, with no banked burst
{}

void RateLimiter::refill(qint64 nowMs)
{
    if (m_lastMs >= 0 && nowMs > m_lastMs) {
        // A bounded burst: an idle spell does not bank more than a quarter second of sending.
        m_tokens = std::min(m_tokens + m_rate * double(nowMs - m_lastMs) / 1000.0, m_rate / 4);
    }
    m_lastMs = std::max(m_lastMs, nowMs);
}

bool RateLimiter::mayStart(qint64 nowMs)
{
    if (!isLimited())
        return true;
    refill(nowMs);
    return m_tokens > 0;
}

void RateLimiter::consume(qint64 bytes, qint64 nowMs)
{
    if (!isLimited())
        return;
    refill(nowMs);
    m_tokens -= double(bytes);
}

qint64 RateLimiter::msUntilAllowed(qint64 nowMs)
{
    if (mayStart(nowMs))
        return 0;
    return qint64(std::ceil((1.0 - m_tokens) * 1000.0 / m_rate));
}

qint64 RateLimiter::maxChunkFor() const
{
    return isLimited() ? std::max<qint64>(64 * 1024, qint64(m_rate / 4)) : 0;
}

} // namespace multilane
