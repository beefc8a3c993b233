#include "LinkSimulator.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace multilane::linksim {

namespace {

// With any shaping on, the kernel must not hide extra buffering in front of the emulated link
// (loopback autotuning grows a receive buffer to 32 MiB here): the sender should feel the link's
// backpressure, and what its kernel counts as acknowledged should be what the link took, as on a
// real path, where a byte is acknowledged only once it has crossed the bottleneck. Bytes in
// linksim's receive buffer are acknowledged but still wait for the link, so the buffer holds
// 20 ms of the rate this connection can get now: its own cap, its window (the delay line across
// half a round trip), and its share of the total among the connections open. Bigger, many
// connections together hold seconds of the link, and a sender that counts what was acknowledged
// sees a burst as connections open, then next to nothing while the buffers drain. Bigger than
// 256 KiB, the kernel opens the window of a connection that linksim reads slowly in steps of half
// the buffer; below 8 KiB the window holds too few segments. Without shaping, the kernel's
// defaults are fastest.
constexpr int SmallestReceiveBuffer = 8 * 1024;

int shapedReceiveBuffer(const LinkOptions &options, std::size_t connections)
{
    double rate = std::numeric_limits<double>::infinity();
    if (options.perConnectionRate > 0)
        rate = options.perConnectionRate;
    if (options.totalRate > 0)
        rate = std::min(rate, options.totalRate / static_cast<double>(std::max<std::size_t>(connections, 1)));
    if (options.rtt.count() > 0)
        rate = std::min(rate, static_cast<double>(options.bufferBytes) /
                                  std::chrono::duration<double>(options.rtt / 2).count());
    if (!std::isfinite(rate))
        return 256 * 1024;
    return static_cast<int>(std::clamp(rate * 0.02, double(SmallestReceiveBuffer), 256.0 * 1024));
}

// And the segments the sender's side sees are a WAN's, not loopback's 64 KiB: the receive window
// opens in steps of at least two segments.
constexpr int ShapedSegmentSize = 1448;

struct Tag {
    enum class Kind { Listener, Socket, Signal } kind;
    void *object;
};

Tag g_signalTag{Tag::Kind::Signal, nullptr};

std::string errorText(const std::string &what)
{
    return what + ": " + std::strerror(errno);
}

void setOption(int fd, int level, int name, int value)
{
    ::setsockopt(fd, level, name, &value, sizeof value);
}

bool addToEpoll(int epoll, int fd, std::uint32_t events, Tag *tag)
{
    epoll_event event{};
    event.events = events;
    event.data.ptr = tag;
    return ::epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0;
}

std::string hostPort(const std::string &host, int port)
{
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? '[' + host + ']' : host) + ':' + std::to_string(port);
}

} // namespace

struct LinkSimulator::Listener {
    Route route;
    int fd = -1;
    sockaddr_storage target{};
    socklen_t targetLength = 0;
    Tag tag{Tag::Kind::Listener, this};
    ~Listener()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

struct LinkSimulator::Connection {
    Connection(std::uint64_t number, const Listener &from, int clientFd, int serverFd, const LinkOptions &o,
               TokenBucket *shared, TimePoint now)
        : id(number)
        , target(from.route.target())
        , opened(now)
        , client{clientFd}
        , server{serverFd, false, false, false}
        , up(client, server, {o.perConnectionRate, o.rtt / 2, o.bufferBytes, shared}, now)
        , down(server, client, {o.perConnectionRate, o.rtt / 2, o.bufferBytes, nullptr}, now)
    {}
    ~Connection()
    {
        ::close(client.fd);
        ::close(server.fd);
    }

    std::uint64_t id;
    std::string target;
    TimePoint opened;
    Socket client;
    Socket server;
    Pipe up;               // client -> server: the uplink
    Pipe down;             // server -> client
    int receiveBuffer = 0; // the client side's, from the listener or grown since
    Tag clientTag{Tag::Kind::Socket, &client};
    Tag serverTag{Tag::Kind::Socket, &server};
};

LinkSimulator::LinkSimulator(const LinkOptions &options, std::FILE *out, std::FILE *log)
    : m_options(options)
    , m_out(out)
    , m_log(log)
{
    if (options.totalRate > 0) {
        m_totalRate.emplace(options.totalRate, TokenBucket::defaultBurst(options.totalRate), Clock::now());
        m_totalThreshold = static_cast<std::size_t>(m_totalRate->burst() / 4); // as in Pipe
    }
}

LinkSimulator::~LinkSimulator()
{
    if (m_report)
        std::fclose(m_report);
    m_connections.clear();
    m_listeners.clear();
    if (m_signals >= 0)
        ::close(m_signals);
    if (m_epoll >= 0)
        ::close(m_epoll);
}

std::optional<std::string> LinkSimulator::start()
{
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    if (m_epoll < 0)
        return errorText("epoll_create1");
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGINT);
    sigaddset(&stopSignals, SIGTERM);
    ::sigprocmask(SIG_BLOCK, &stopSignals, nullptr);
    m_signals = ::signalfd(-1, &stopSignals, SFD_NONBLOCK | SFD_CLOEXEC);
    if (m_signals < 0 || !addToEpoll(m_epoll, m_signals, EPOLLIN, &g_signalTag))
        return errorText("signalfd");

    const bool shaped = isShaped();
    for (const Route &route : m_options.routes) {
        auto listener = std::make_unique<Listener>();
        listener->route = route;
        addrinfo hints{};
        hints.ai_socktype = SOCK_STREAM;
        addrinfo *found = nullptr;
        const std::string targetPort = std::to_string(route.targetPort);
        if (const int error = ::getaddrinfo(route.targetHost.c_str(), targetPort.c_str(), &hints, &found))
            return "cannot resolve " + route.target() + ": " + ::gai_strerror(error);
        std::memcpy(&listener->target, found->ai_addr, found->ai_addrlen);
        listener->targetLength = found->ai_addrlen;
        ::freeaddrinfo(found);

        hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST;
        const std::string listenPort = std::to_string(route.listenPort);
        if (const int error = ::getaddrinfo(route.listenHost.c_str(), listenPort.c_str(), &hints, &found))
            return "cannot listen on " + hostPort(route.listenHost, route.listenPort) + ": " +
                   ::gai_strerror(error) + " (HOST must be a numeric address)";
        listener->fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        setOption(listener->fd, SOL_SOCKET, SO_REUSEADDR, 1);
        if (shaped) {
            // Inherited: each connection starts at the smallest and is grown to its share once
            // accepted (fitReceiveBuffers).
            setOption(listener->fd, SOL_SOCKET, SO_RCVBUF, SmallestReceiveBuffer);
            setOption(listener->fd, IPPROTO_TCP, TCP_MAXSEG, ShapedSegmentSize);
        }
        const bool bound = listener->fd >= 0 &&
                           ::bind(listener->fd, found->ai_addr, found->ai_addrlen) == 0 &&
                           ::listen(listener->fd, SOMAXCONN) == 0;
        ::freeaddrinfo(found);
        if (!bound)
            return errorText("cannot listen on " + hostPort(route.listenHost, route.listenPort));
        sockaddr_storage local{};
        socklen_t localLength = sizeof local;
        ::getsockname(listener->fd, reinterpret_cast<sockaddr *>(&local), &localLength);
        const int port = ntohs(local.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6 &>(local).sin6_port
                                                           : reinterpret_cast<sockaddr_in &>(local).sin_port);
        if (!addToEpoll(m_epoll, listener->fd, EPOLLIN, &listener->tag))
            return errorText("epoll_ctl");
        std::fprintf(m_out, "linksim %s -> %s\n", hostPort(route.listenHost, port).c_str(),
                     route.target().c_str());
        m_listeners.push_back(std::move(listener));
    }
    if (!m_options.quiet) {
        std::fprintf(m_log, "linksim: per connection %s, total %s, RTT %.1f ms, buffer %zu bytes\n",
                     formatRate(m_options.perConnectionRate).c_str(), formatRate(m_options.totalRate).c_str(),
                     std::chrono::duration<double, std::milli>(m_options.rtt).count(), m_options.bufferBytes);
    }
    if (!m_options.reportPath.empty()) {
        m_report = std::fopen(m_options.reportPath.c_str(), "w");
        if (!m_report)
            return errorText("cannot write " + m_options.reportPath);
    }
    m_started = Clock::now();
    m_nextReport = m_started;
    std::fflush(m_out);
    return std::nullopt;
}

void LinkSimulator::report(TimePoint now)
{
    constexpr Nanoseconds interval = std::chrono::milliseconds(100);
    if (!m_report || now < m_nextReport)
        return;
    std::uint64_t up = m_upOfClosed;
    for (const auto &connection : m_connections)
        up += connection->up.bytesAccepted();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - m_started).count();
    std::fprintf(m_report, "%lld %llu %zu\n", static_cast<long long>(ms), static_cast<unsigned long long>(up),
                 m_connections.size());
    std::fflush(m_report);
    while (m_nextReport <= now)
        m_nextReport += interval;
}

int LinkSimulator::run()
{
    std::vector<epoll_event> events(256);
    bool stopping = false;
    while (!stopping) {
        TimePoint now = Clock::now();
        const std::optional<TimePoint> wake = nextWake(now);
        timespec timeout{};
        if (wake) {
            const auto wait = std::max(Nanoseconds(0), *wake - now);
            timeout.tv_sec = static_cast<time_t>(wait.count() / 1000000000);
            timeout.tv_nsec = static_cast<long>(wait.count() % 1000000000);
        }
        const int count = ::epoll_pwait2(m_epoll, events.data(), static_cast<int>(events.size()),
                                         wake ? &timeout : nullptr, nullptr);
        if (count < 0 && errno != EINTR) {
            std::fprintf(m_log, "linksim: %s\n", errorText("epoll_pwait2").c_str());
            return 1;
        }
        for (int i = 0; i < count; ++i) {
            auto *tag = static_cast<Tag *>(events[static_cast<std::size_t>(i)].data.ptr);
            if (tag->kind == Tag::Kind::Signal) {
                signalfd_siginfo info{};
                while (::read(m_signals, &info, sizeof info) == sizeof info)
                    stopping = true;
            } else {
                handleEvent(tag, events[static_cast<std::size_t>(i)].events);
            }
        }
        now = Clock::now();
        pumpAll(now);
        closeFinished(now);
        report(now);
    }
    if (!m_options.quiet)
        std::fprintf(m_log, "linksim: stopping; %llu connections accepted, %zu open\n",
                     static_cast<unsigned long long>(m_accepted), m_connections.size());
    m_connections.clear();
    return 0;
}

void LinkSimulator::handleEvent(void *tagPointer, std::uint32_t events)
{
    auto *tag = static_cast<Tag *>(tagPointer);
    if (tag->kind == Tag::Kind::Listener) {
        accept(*static_cast<Listener *>(tag->object), Clock::now());
        return;
    }
    Socket &socket = *static_cast<Socket *>(tag->object);
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
        socket.readable = true; // the next read finds the data, the EOF or the error
    if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
        socket.writable = true;
    if (!socket.connected && (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))) {
        int error = 0;
        socklen_t length = sizeof error;
        ::getsockopt(socket.fd, SOL_SOCKET, SO_ERROR, &error, &length);
        socket.connected = error == 0;
        socket.failed = error != 0;
        if (error != 0 && !m_options.quiet)
            std::fprintf(m_log, "linksim: cannot connect to the target: %s\n", std::strerror(error));
    }
}

void LinkSimulator::accept(Listener &listener, TimePoint now)
{
    const bool shaped = isShaped();
    for (;;) {
        const int clientFd = ::accept4(listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (clientFd < 0)
            return; // EAGAIN: all taken; anything else: the client gave up already
        const int serverFd =
            ::socket(listener.target.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (serverFd < 0) {
            ::close(clientFd);
            continue;
        }
        // Small writes (requests, responses) must leave at once, or Nagle adds its own delay.
        setOption(clientFd, IPPROTO_TCP, TCP_NODELAY, 1);
        setOption(serverFd, IPPROTO_TCP, TCP_NODELAY, 1);
        if (shaped)
            setOption(serverFd, SOL_SOCKET, SO_RCVBUF, shapedReceiveBuffer(m_options, 1));
        auto connection = std::make_unique<Connection>(++m_accepted, listener, clientFd, serverFd, m_options,
                                                       m_totalRate ? &*m_totalRate : nullptr, now);
        const int connected =
            ::connect(serverFd, reinterpret_cast<const sockaddr *>(&listener.target), listener.targetLength);
        if (connected == 0)
            connection->server.connected = true;
        else if (errno != EINPROGRESS)
            connection->server.failed = true;
        const std::uint32_t interest = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
        addToEpoll(m_epoll, clientFd, interest, &connection->clientTag);
        addToEpoll(m_epoll, serverFd, interest, &connection->serverTag);
        connection->receiveBuffer = SmallestReceiveBuffer; // inherited from the listener
        m_connections.push_back(std::move(connection));
        fitReceiveBuffers();
    }
}

bool LinkSimulator::isShaped() const
{
    return m_options.perConnectionRate > 0 || m_options.totalRate > 0 || m_options.rtt.count() > 0;
}

void LinkSimulator::fitReceiveBuffers()
{
    if (!isShaped())
        return;
    // A receive buffer is only ever grown: shrunk under a window the sender was already given,
    // the kernel prunes and drops segments in flight (retransmissions and, on loopback, 200 ms
    // timeouts that no real link of this rate has). So a connection starts at the
    // smallest (the listener's, before its handshake), is grown to its share of the link as it is
    // accepted, and grows again as others close; one that opened when few were open keeps its
    // bigger buffer while more open. Grown again only once the share has risen by a quarter:
    // not for every connection that closes.
    const int share = shapedReceiveBuffer(m_options, m_connections.size());
    for (const auto &connection : m_connections) {
        if (share > connection->receiveBuffer * 5 / 4) {
            setOption(connection->client.fd, SOL_SOCKET, SO_RCVBUF, share);
            connection->receiveBuffer = share;
        }
    }
}

void LinkSimulator::pumpAll(TimePoint now)
{
    const std::size_t count = m_connections.size();
    for (std::size_t i = 0; i < count; ++i) {
        Connection &connection = *m_connections[(i + m_rotation) % count];
        connection.down.pump(now);
        if (m_totalRate)
            connection.up.flush(now); // it reads in shareTotalRate()
        else
            connection.up.pump(now);
    }
    if (m_totalRate)
        shareTotalRate(now);
    ++m_rotation;
}

void LinkSimulator::shareTotalRate(TimePoint now)
{
    std::vector<Pipe *> wanting;
    const std::size_t count = m_connections.size();
    for (std::size_t i = 0; i < count; ++i) {
        Pipe &pipe = m_connections[(i + m_rotation) % count]->up;
        if (pipe.wantsSharedTokens(now))
            wanting.push_back(&pipe);
    }
    m_totalRate->setBacklogged(!wanting.empty());
    std::size_t available = m_totalRate->available(now);
    if (wanting.empty() || available < m_totalThreshold)
        return;
    // Equal shares, round after round, so a connection that reads less leaves its share to
    // the others; everyone who still wants more gets the same again.
    for (int round = 0; round < 8 && available > 0 && !wanting.empty(); ++round) {
        const std::size_t share = std::max<std::size_t>(available / wanting.size(), 1);
        std::erase_if(wanting, [&](Pipe *pipe) {
            const std::size_t wanted = std::min({share, pipe->readAllowance(now), available});
            const std::size_t got = wanted == 0 ? 0 : pipe->fill(wanted, now);
            m_totalRate->consume(got);
            available -= got;
            pipe->flush(now);
            return got == 0 || got < wanted;
        });
    }
}

std::optional<TimePoint> LinkSimulator::nextWake(TimePoint now)
{
    std::optional<TimePoint> wake;
    auto consider = [&wake](std::optional<TimePoint> time) {
        if (time && (!wake || *time < *wake))
            wake = time;
    };
    bool wantsShared = false;
    for (const auto &connection : m_connections) {
        consider(connection->up.wakeAt(now));
        consider(connection->down.wakeAt(now));
        wantsShared = wantsShared || (m_totalRate && connection->up.wantsSharedTokens(now));
    }
    if (wantsShared)
        consider(m_totalRate->readyAt(m_totalThreshold, now));
    if (m_report)
        consider(m_nextReport);
    return wake;
}

void LinkSimulator::closeFinished(TimePoint now)
{
    const std::size_t before = m_connections.size();
    std::erase_if(m_connections, [&](const std::unique_ptr<Connection> &connection) {
        const bool done =
            connection->server.failed || (connection->up.finished() && connection->down.finished());
        if (!done)
            return false;
        if (connection->server.failed) {
            // Tell the client the way a refused connection would: a reset, not a clean close.
            const linger reset{1, 0};
            ::setsockopt(connection->client.fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
        }
        logClose(*connection, now);
        m_upOfClosed += connection->up.bytesAccepted();
        return true;
    });
    if (m_connections.size() != before)
        fitReceiveBuffers();
}

void LinkSimulator::logClose(const Connection &connection, TimePoint now) const
{
    if (m_options.quiet)
        return;
    const double seconds = std::chrono::duration<double>(now - connection.opened).count();
    const auto up = connection.up.bytesDelivered();
    std::fprintf(
        m_log, "linksim: #%llu to %s closed after %.3f s: up %llu bytes (%.3f MB/s), down %llu bytes\n",
        static_cast<unsigned long long>(connection.id), connection.target.c_str(), seconds,
        static_cast<unsigned long long>(up), seconds > 0 ? static_cast<double>(up) / seconds / 1e6 : 0.0,
        static_cast<unsigned long long>(connection.down.bytesDelivered()));
}

} // namespace multilane::linksim
