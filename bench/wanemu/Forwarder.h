#pragma once

#include "DirectionModel.h"
#include "PacketChannel.h"

#include <cstdio>
#include <functional>
#include <optional>
#include <string>

namespace multilane::wanemu {

// The event loop: reads packets from both directions' channels, asks each direction's model
// what becomes of them, and releases or drops them when the model says. Single-threaded, on
// epoll with nanosecond timeouts (epoll_pwait2).
class Forwarder {
public:
    struct Lane {
        const char *name; // "up" or "down"
        DirectionModel model;
        PacketChannel &channel;
    };
    // Called for each signal from the signalfd; returns false to end the loop.
    using SignalHandler = std::function<bool(int signal)>;

    Forwarder(Lane up, Lane down, Nanoseconds tick, int signalFd, SignalHandler onSignal);
    // Runs until the signal handler says stop; a message when a channel fails.
    std::optional<std::string> run();
    // Prints both directions' counters since the last call (and starts a new interval), or
    // since the start when total.
    void printCounters(std::FILE *out, bool total);

    static Nanoseconds now();

private:
    std::optional<std::string> receive(Lane &lane, Nanoseconds now);
    std::optional<std::string> releaseDue(Lane &lane, Nanoseconds now);
    std::optional<Nanoseconds> nextEvent() const;

    Lane m_up;
    Lane m_down;
    Nanoseconds m_tick;
    int m_signalFd;
    SignalHandler m_onSignal;
    std::vector<PacketInfo> m_arrived;
    std::vector<std::uint64_t> m_released;
    std::vector<std::uint64_t> m_dropped;
};

} // namespace multilane::wanemu
