#pragma once

#include "DelayLine.h"
#include "TokenBucket.h"

#include <cstdint>
#include <optional>

namespace multilane::linksim {

// One end of a proxied connection, and what edge-triggered epoll last said about it.
struct Socket {
    int fd = -1;
    bool readable = false;
    bool writable = false;
    bool connected = true; // the outbound socket is false until its connect() completes
    bool failed = false;   // connect() failed
};

// How one direction of the link is shaped.
struct PipeShape {
    double rate = 0;      // bytes/s for this pipe alone, 0 = unlimited
    Nanoseconds delay{0}; // one-way latency
    std::size_t bufferBytes = 4 * 1024 * 1024;
    TokenBucket *shared = nullptr; // a bucket shared with other pipes, spent by the caller
};

// One direction of a proxied connection: reads from `source` into a delay line (at most the
// buffer, at most what the rate allows), writes to `sink` what is due, and passes EOF on once
// everything before it has been delivered. It never blocks; the event loop drives it.
class Pipe {
public:
    Pipe(Socket &source, Socket &sink, const PipeShape &shape, TimePoint now);

    // Bytes fill() may read now: buffer space and this pipe's own rate (not the shared one).
    // Zero while the source has nothing new, the buffer is full or the rate needs a pause.
    std::size_t readAllowance(TimePoint now);
    // Reads up to `limit` bytes; returns how many it read.
    std::size_t fill(std::size_t limit, TimePoint now);
    // Writes what is due to the sink; after EOF and an empty line, shuts the sink's write side.
    void flush(TimePoint now);
    // Both, until neither makes progress (for pipes that draw on no shared bucket).
    void pump(TimePoint now);

    // When this pipe next has timed work: a held byte falls due or its rate allows a read.
    std::optional<TimePoint> wakeAt(TimePoint now);
    // Whether the pipe could read if a shared bucket allowed it.
    bool wantsSharedTokens(TimePoint now) { return readAllowance(now) > 0; }

    bool finished() const { return m_failed || (m_eof && m_line.empty() && m_shutDown); }
    bool failed() const { return m_failed; }
    std::uint64_t bytesDelivered() const { return m_delivered; }
    // Bytes taken onto the link (read from the source, past the rate caps).
    std::uint64_t bytesAccepted() const { return m_accepted; }
    std::size_t bytesHeld() const { return m_line.size(); }
    std::size_t bufferCapacity() const { return m_line.capacity(); }

private:
    bool sourceReady() const;

    Socket &m_source;
    Socket &m_sink;
    Nanoseconds m_delay;
    std::optional<TokenBucket> m_rate;
    std::size_t m_rateThreshold = 0; // wait for this many tokens, so reads are not tiny
    DelayLine m_line;
    bool m_eof = false;
    bool m_shutDown = false;
    bool m_failed = false;
    std::uint64_t m_delivered = 0;
    std::uint64_t m_accepted = 0;
};

} // namespace multilane::linksim
