#include "Forwarder.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace multilane::wanemu {

namespace {

constexpr std::size_t PacketsPerRead = 256; // then timers get their turn

enum Source : std::uint64_t { UpSource, DownSource, SignalSource };

bool watch(int epoll, int fd, Source source)
{
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = source;
    return ::epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0;
}

} // namespace

Forwarder::Forwarder(Lane up, Lane down, Nanoseconds tick, int signalFd, SignalHandler onSignal)
    : m_up(std::move(up))
    , m_down(std::move(down))
    , m_tick(tick)
    , m_signalFd(signalFd)
    , m_onSignal(std::move(onSignal))
{}

Nanoseconds Forwarder::now()
{
    timespec time{};
    ::clock_gettime(CLOCK_MONOTONIC, &time);
    return Nanoseconds(static_cast<std::int64_t>(time.tv_sec) * 1000000000 + time.tv_nsec);
}

std::optional<Nanoseconds> Forwarder::nextEvent() const
{
    const auto up = m_up.model.nextEvent();
    const auto down = m_down.model.nextEvent();
    if (up && down)
        return std::min(*up, *down);
    return up ? up : down;
}

std::optional<std::string> Forwarder::receive(Lane &lane, Nanoseconds now)
{
    m_arrived.clear();
    if (auto error = lane.channel.receive(m_arrived, PacketsPerRead))
        return error;
    for (const PacketInfo &packet : m_arrived) {
        if (lane.model.arrive(packet, now) != DropCause::None)
            lane.channel.drop(packet.token);
    }
    return std::nullopt;
}

std::optional<std::string> Forwarder::releaseDue(Lane &lane, Nanoseconds now)
{
    m_released.clear();
    m_dropped.clear();
    lane.model.due(now, m_released, m_dropped);
    for (const std::uint64_t token : m_dropped)
        lane.channel.drop(token);
    for (const std::uint64_t token : m_released)
        lane.channel.release(token);
    return lane.channel.flush();
}

std::optional<std::string> Forwarder::run()
{
    const int epoll = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll < 0 || !watch(epoll, m_up.channel.fd(), UpSource) ||
        !watch(epoll, m_down.channel.fd(), DownSource) || !watch(epoll, m_signalFd, SignalSource))
        return std::string("epoll: ") + std::strerror(errno);
    std::optional<std::string> failure;
    bool running = true;
    Nanoseconds lastRelease = now();
    while (running && !failure) {
        // Sleep until the next release, but at least one tick after the last one: releases
        // then come in small batches instead of one wake-up per packet.
        timespec timeout{};
        const auto next = nextEvent();
        if (next) {
            const Nanoseconds wait = std::max({*next, lastRelease + m_tick}) - now();
            const std::int64_t ns = std::max<std::int64_t>(0, wait.count());
            timeout = {static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
        }
        epoll_event events[4];
        const int ready = ::epoll_pwait2(epoll, events, 4, next ? &timeout : nullptr, nullptr);
        if (ready < 0 && errno != EINTR) {
            failure = std::string("epoll_pwait2: ") + std::strerror(errno);
            break;
        }
        const Nanoseconds time = now();
        for (int i = 0; i < ready && running && !failure; ++i) {
            if (events[i].data.u64 == SignalSource) {
                signalfd_siginfo info{};
                while (::read(m_signalFd, &info, sizeof info) == sizeof info && running)
                    running = m_onSignal(static_cast<int>(info.ssi_signo));
            } else {
                failure = receive(events[i].data.u64 == UpSource ? m_up : m_down, time);
            }
        }
        if (next && *next <= time)
            lastRelease = time;
        if (!failure)
            failure = releaseDue(m_up, time);
        if (!failure)
            failure = releaseDue(m_down, time);
    }
    ::close(epoll);
    return failure;
}

void Forwarder::printCounters(std::FILE *out, bool total)
{
    const std::string label = total ? "total" : "interval";
    for (Lane *lane : {&m_up, &m_down}) {
        const DirectionCounters &counters = total ? lane->model.total() : lane->model.interval();
        std::fprintf(out, "%s\n", formatCounters(label, lane->name, counters).c_str());
        if (!total)
            lane->model.resetInterval();
        if (const std::string outside = lane->channel.lossesOutsideModel(); !outside.empty())
            std::fprintf(out, "wanemu outside-model %s %s: %s\n", label.c_str(), lane->name, outside.c_str());
    }
    std::fflush(out);
}

} // namespace multilane::wanemu
