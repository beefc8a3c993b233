#include "Pipe.h"

#include <algorithm>
#include <cerrno>
#include <limits>
#include <sys/socket.h>
#include <unistd.h>

namespace multilane::linksim {

namespace {
constexpr std::size_t MaxRead = 1024 * 1024; // per read() call
} // namespace

Pipe::Pipe(Socket &source, Socket &sink, const PipeShape &shape, TimePoint now)
    : m_source(source)
    , m_sink(sink)
    , m_delay(shape.delay)
    , m_line(shape.bufferBytes)
{
    if (shape.rate > 0) {
        m_rate.emplace(shape.rate, TokenBucket::defaultBurst(shape.rate), now);
        // Wake for a quarter of the burst: reads stay a useful size, and a wake-up that comes late
        // (a busy machine) still has three quarters of the burst in hand before tokens overflow.
        m_rateThreshold = static_cast<std::size_t>(m_rate->burst() / 4);
    }
}

bool Pipe::sourceReady() const
{
    return m_source.connected && m_source.readable && !m_eof && !m_failed && m_line.space() > 0;
}

std::size_t Pipe::readAllowance(TimePoint now)
{
    // A readable source has had bytes waiting since we last read: the link was busy meanwhile.
    if (m_rate)
        m_rate->setBacklogged(sourceReady());
    if (!sourceReady())
        return 0;
    std::size_t allowance = std::min(m_line.space(), MaxRead);
    if (m_rate) {
        const std::size_t tokens = m_rate->available(now);
        // Wait for a useful amount unless the buffer itself has less room than that.
        if (tokens < std::min(m_rateThreshold, allowance))
            return 0;
        allowance = std::min(allowance, tokens);
    }
    return allowance;
}

std::size_t Pipe::fill(std::size_t limit, TimePoint now)
{
    std::size_t total = 0;
    // A delay of zero releases at once; a constant release time also merges the segments.
    const TimePoint releaseAt = m_delay.count() > 0 ? now + m_delay : TimePoint{};
    while (total < limit && sourceReady()) {
        const std::span<char> room = m_line.freeSpan();
        const std::size_t wanted = std::min(room.size(), limit - total);
        const ssize_t got = ::recv(m_source.fd, room.data(), wanted, 0);
        if (got > 0) {
            m_line.commit(static_cast<std::size_t>(got), releaseAt);
            total += static_cast<std::size_t>(got);
            if (static_cast<std::size_t>(got) < wanted)
                break; // probably drained; the next call finds out without a wasted syscall now
        } else if (got == 0) {
            m_eof = true;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            m_source.readable = false;
        } else if (errno != EINTR) {
            m_eof = true; // a reset sender: deliver what arrived, then close
        }
    }
    m_accepted += total;
    if (m_rate)
        m_rate->consume(total);
    return total;
}

void Pipe::flush(TimePoint now)
{
    while (!m_failed && m_sink.connected && m_sink.writable) {
        const std::span<const char> due = m_line.releasedSpan(now);
        if (due.empty())
            break;
        const ssize_t sent = ::send(m_sink.fd, due.data(), due.size(), MSG_NOSIGNAL);
        if (sent > 0) {
            m_line.consume(static_cast<std::size_t>(sent));
            m_delivered += static_cast<std::uint64_t>(sent);
        } else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            m_sink.writable = false;
        } else if (sent < 0 && errno != EINTR) {
            m_failed = true; // the receiving side is gone; what is held cannot be delivered
            m_line.consume(m_line.size());
        }
    }
    if (m_eof && m_line.empty() && !m_shutDown && !m_failed && m_sink.connected) {
        ::shutdown(m_sink.fd, SHUT_WR);
        m_shutDown = true;
    }
}

void Pipe::pump(TimePoint now)
{
    flush(now);
    for (int round = 0; round < 16; ++round) {
        const std::size_t allowance = readAllowance(now);
        if (allowance == 0 || fill(allowance, now) == 0)
            break;
        flush(now);
    }
    flush(now); // an EOF seen by the last fill() is passed on here
}

std::optional<TimePoint> Pipe::wakeAt(TimePoint now)
{
    // A time at or before `now` means "at once": the clock moved on since the last pump, and
    // skipping such a pipe would leave it asleep with nothing else to wake it.
    std::optional<TimePoint> wake;
    if (!m_line.empty() && m_sink.connected && m_sink.writable)
        wake = m_line.nextRelease();
    if (m_rate && sourceReady()) {
        const TimePoint ready = m_rate->readyAt(std::min(m_rateThreshold, m_line.space()), now);
        wake = wake ? std::min(*wake, ready) : ready;
    }
    return wake;
}

} // namespace multilane::linksim
