#pragma once

#include "Clock.h"

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <span>

namespace multilane::linksim {

// A bounded byte queue in which every byte carries the time it may leave: the "wire" of one
// direction of an emulated link. Bytes come out in order, and only once their time has come.
class DelayLine {
public:
    explicit DelayLine(std::size_t capacity);

    std::size_t capacity() const { return m_capacity; }
    std::size_t size() const { return m_size; }
    std::size_t space() const { return m_capacity - m_size; }
    bool empty() const { return m_size == 0; }

    // The contiguous free region to read new bytes into (the memory is allocated on first use).
    std::span<char> freeSpan();
    // Appends `bytes` just written into freeSpan(), to be released at `releaseAt`.
    void commit(std::size_t bytes, TimePoint releaseAt);

    // The contiguous run of bytes at the front whose release time is <= now.
    std::span<const char> releasedSpan(TimePoint now) const;
    void consume(std::size_t bytes);

    // Release time of the first byte still held back, if any.
    std::optional<TimePoint> nextRelease() const;

private:
    struct Segment {
        std::size_t bytes;
        TimePoint releaseAt;
    };

    std::size_t m_capacity;
    std::unique_ptr<char[]> m_data;
    std::size_t m_head = 0; // first byte held
    std::size_t m_size = 0;
    std::deque<Segment> m_segments; // release times never decrease
};

} // namespace multilane::linksim
