#pragma once

#include "LinkOptions.h"
#include "Pipe.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <vector>

namespace multilane::linksim {

// The proxy: listeners, the connections they accept, and one single-threaded epoll loop that
// moves bytes through each connection's two pipes as the emulated link allows.
class LinkSimulator {
public:
    // Listener lines go to `out`; connection logs (unless quiet) to `log`.
    LinkSimulator(const LinkOptions &options, std::FILE *out, std::FILE *log);
    ~LinkSimulator();
    LinkSimulator(const LinkSimulator &) = delete;
    LinkSimulator &operator=(const LinkSimulator &) = delete;

    // Resolves the targets, opens the listeners and prints one line for each. An error message
    // if that failed.
    std::optional<std::string> start();
    // Forwards until SIGINT or SIGTERM (blocked and taken from a signalfd); returns 0.
    int run();

private:
    struct Listener;
    struct Connection;

    void accept(Listener &listener, TimePoint now);
    void handleEvent(void *tag, std::uint32_t events);
    void pumpAll(TimePoint now);
    void shareTotalRate(TimePoint now);
    std::optional<TimePoint> nextWake(TimePoint now);
    void closeFinished(TimePoint now);
    // Any rate, round trip or window: the kernel's own buffering must then stay out of the way.
    bool isShaped() const;
    // Each connection's receive buffer to its share of the link (see shapedReceiveBuffer).
    void fitReceiveBuffers();
    void logClose(const Connection &connection, TimePoint now) const;
    void report(TimePoint now);

    LinkOptions m_options;
    std::FILE *m_out;
    std::FILE *m_log;
    int m_epoll = -1;
    int m_signals = -1;
    std::optional<TokenBucket> m_totalRate;
    std::size_t m_totalThreshold = 0;
    std::vector<std::unique_ptr<Listener>> m_listeners;
    std::vector<std::unique_ptr<Connection>> m_connections;
    std::size_t m_rotation = 0; // who reads first from the shared bucket, rotated for fairness
    std::uint64_t m_accepted = 0;
    std::FILE *m_report = nullptr;
    TimePoint m_started{};
    TimePoint m_nextReport{};
    std::uint64_t m_upOfClosed = 0; // bytes up of connections already closed
};

} // namespace multilane::linksim
