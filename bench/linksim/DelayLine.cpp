#include "DelayLine.h"

#include <algorithm>
#include <cassert>

namespace multilane::linksim {

DelayLine::DelayLine(std::size_t capacity)
    : m_capacity(std::max<std::size_t>(capacity, 1))
{}

std::span<char> DelayLine::freeSpan()
{
    if (!m_data)
        m_data.reset(new char[m_capacity]); // not zeroed: pages become resident only when used
    if (m_size == m_capacity)
        return {};
    const std::size_t tail = (m_head + m_size) % m_capacity;
    const std::size_t end = tail >= m_head ? m_capacity : m_head;
    // Tail at or after head: the free space runs to the end of the array (the rest, at the
    // start, is offered by the next call).
    return {m_data.get() + tail, end - tail};
}

void DelayLine::commit(std::size_t bytes, TimePoint releaseAt)
{
    if (bytes == 0)
        return;
    assert(bytes <= space());
    m_size += bytes;
    if (!m_segments.empty() && m_segments.back().releaseAt >= releaseAt)
        m_segments.back().bytes += bytes; // same (or, from a coarse clock, earlier) release time
    else
        m_segments.push_back({bytes, releaseAt});
}

std::span<const char> DelayLine::releasedSpan(TimePoint now) const
{
    std::size_t released = 0;
    for (const Segment &segment : m_segments) {
        if (segment.releaseAt > now)
            break;
        released += segment.bytes;
        if (released >= m_capacity - m_head)
            break; // already past the wrap: enough to know the contiguous run
    }
    const std::size_t contiguous = std::min({released, m_size, m_capacity - m_head});
    return {m_data.get() + m_head, contiguous};
}

void DelayLine::consume(std::size_t bytes)
{
    assert(bytes <= m_size);
    m_head = (m_head + bytes) % m_capacity;
    m_size -= bytes;
    if (m_size == 0)
        m_head = 0; // keep reads large and contiguous
    while (bytes > 0 && !m_segments.empty()) {
        Segment &front = m_segments.front();
        const std::size_t taken = std::min(bytes, front.bytes);
        front.bytes -= taken;
        bytes -= taken;
        if (front.bytes == 0)
            m_segments.pop_front();
    }
}

std::optional<TimePoint> DelayLine::nextRelease() const
{
    if (m_segments.empty())
        return std::nullopt;
    return m_segments.front().releaseAt;
}

} // namespace multilane::linksim
