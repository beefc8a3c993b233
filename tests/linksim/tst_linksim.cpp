// linksim end to end: the real binary between real loopback sockets. Rates and delays are
// checked with generous time bounds (machines are noisy); bytes are checked exactly.
#include "LinksimProcess.h"

#include <QElapsedTimer>
#include <QTest>
#include <arpa/inet.h>
#include <atomic>
#include <functional>
#include <limits>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

int listenLoopback(quint16 &port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    ::bind(fd, reinterpret_cast<sockaddr *>(&address), length);
    ::listen(fd, 16);
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length);
    port = ntohs(address.sin_port);
    return fd;
}

int connectTo(quint16 port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    timeval timeout{30, 0}; // a hung proxy fails the test instead of hanging it
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

QByteArray pattern(qsizetype size, quint32 seed)
{
    QByteArray data(size, Qt::Uninitialized);
    quint32 state = seed * 2654435761u + 1;
    for (char &byte : data) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        byte = char(state);
    }
    return data;
}

bool sendAll(int fd, const char *data, qsizetype size)
{
    while (size > 0) {
        const ssize_t sent = ::send(fd, data, size_t(size), MSG_NOSIGNAL);
        if (sent <= 0)
            return false;
        data += sent;
        size -= sent;
    }
    return true;
}

QByteArray readToEnd(int fd)
{
    QByteArray all;
    char buffer[256 * 1024];
    for (ssize_t got; (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
        all.append(buffer, got);
    return all;
}

int acceptOne(int listener)
{
    const int fd = ::accept(listener, nullptr, nullptr);
    timeval timeout{30, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    return fd;
}

// Opens `count` connections through linksim's first port and accepts each at the target. False
// if one could not connect.
bool connectMany(quint16 port, int listener, int count, std::vector<int> &clients, std::vector<int> &accepted)
{
    for (int i = 0; i < count; ++i) {
        clients.push_back(connectTo(port));
        if (clients.back() < 0)
            return false;
        accepted.push_back(acceptOne(listener));
    }
    return true;
}

// Counts into `received` what arrives on any of `fds`, while `keepGoing` says so.
void countArrivals(const std::vector<int> &fds, std::atomic<qint64> &received,
                   const std::function<bool()> &keepGoing)
{
    std::vector<pollfd> readable;
    for (int fd : fds)
        readable.push_back({fd, POLLIN, 0});
    char buffer[64 * 1024];
    while (keepGoing()) {
        if (::poll(readable.data(), readable.size(), 100) <= 0)
            continue;
        for (const pollfd &p : readable) {
            if (p.revents & POLLIN) {
                const ssize_t got = ::recv(p.fd, buffer, sizeof buffer, MSG_DONTWAIT);
                if (got > 0)
                    received += got;
            }
        }
    }
}

// Writes to each of `clients` in turn as much as it takes without blocking, until each has
// written `limit` bytes or `keepGoing` says stop. Returns what each wrote.
std::vector<qint64> writeInTurn(const std::vector<int> &clients, qint64 limit,
                                const std::function<bool()> &keepGoing)
{
    const QByteArray data = pattern(64 * 1024, 4);
    std::vector<qint64> written(clients.size());
    for (bool more = true; more && keepGoing();) {
        more = false;
        for (size_t i = 0; i < clients.size(); ++i) {
            const qint64 left = limit - written[i];
            if (left <= 0)
                continue;
            more = true;
            const ssize_t sent =
                ::send(clients[i], data.constData(), size_t(std::min<qint64>(left, data.size())),
                       MSG_DONTWAIT | MSG_NOSIGNAL);
            if (sent > 0)
                written[i] += sent;
        }
        pollfd any{clients.front(), POLLOUT, 0};
        ::poll(&any, 1, 5);
    }
    return written;
}

// Echoes every byte back until EOF, on one accepted connection.
void echo(int fd)
{
    char buffer[256 * 1024];
    for (ssize_t got; (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
        if (!sendAll(fd, buffer, got))
            break;
    }
    ::shutdown(fd, SHUT_WR);
}

} // namespace

class TestLinksim : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void perConnectionRateHolds();
    void totalRateIsSharedFairly();
    void rttDelaysEachRoundTrip();
    void slowReaderMeetsBackpressure();
    void acknowledgedIsWhatTheLinkTook();
    void connectionsOpeningLoseNoSegments();
    void bytesArriveExactBothWays_data();
    void bytesArriveExactBothWays();
    void stopsCleanlyOnSigterm();
};

void TestLinksim::perConnectionRateHolds()
{
    quint16 target = 0;
    const int listener = listenLoopback(target);
    LinksimProcess linksim;
    QVERIFY2(linksim.start({target}, {QStringLiteral("--per-connection-rate"), QStringLiteral("2MB/s")}),
             qPrintable(linksim.errorText()));
    const QByteArray data = pattern(6'000'000, 1);
    QByteArray received;
    QElapsedTimer clock;
    clock.start();
    std::thread sink([&] {
        const int fd = acceptOne(listener);
        received = readToEnd(fd);
        ::close(fd);
    });
    const int fd = connectTo(linksim.ports().at(0));
    QVERIFY(fd >= 0);
    QVERIFY(sendAll(fd, data.constData(), data.size()));
    ::shutdown(fd, SHUT_WR);
    sink.join();
    const double seconds = double(clock.nsecsElapsed()) / 1e9;
    QCOMPARE(readToEnd(fd).size(), 0); // then linksim passes the target's EOF on
    ::close(fd);
    ::close(listener);
    QVERIFY(received == data);
    const double ideal = 3.0;
    qInfo("6 MB through 2 MB/s: %.3f s, %.3f MB/s", seconds, 6.0 / seconds);
    QVERIFY2(seconds >= 0.9 * ideal && seconds <= 1.3 * ideal, qPrintable(QString::number(seconds)));
}

void TestLinksim::totalRateIsSharedFairly()
{
    quint16 target = 0;
    const int listener = listenLoopback(target);
    LinksimProcess linksim;
    QVERIFY2(linksim.start({target}, {QStringLiteral("--total-rate"), QStringLiteral("8MB/s")}),
             qPrintable(linksim.errorText()));
    constexpr int Connections = 4;
    constexpr qsizetype Bytes = 6'000'000;
    const QByteArray data = pattern(Bytes, 2);
    std::vector<int> clients;
    std::vector<int> accepted;
    QVERIFY(connectMany(linksim.ports().at(0), listener, Connections, clients, accepted));
    std::vector<double> seconds(Connections);
    std::vector<qsizetype> sizes(Connections);
    std::vector<std::thread> threads;
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < Connections; ++i) {
        threads.emplace_back([&, i] {
            sendAll(clients[size_t(i)], data.constData(), data.size());
            ::shutdown(clients[size_t(i)], SHUT_WR);
        });
        threads.emplace_back([&, i] {
            sizes[size_t(i)] = readToEnd(accepted[size_t(i)]).size();
            seconds[size_t(i)] = double(clock.nsecsElapsed()) / 1e9;
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    for (int i = 0; i < Connections; ++i) {
        ::close(clients[size_t(i)]);
        ::close(accepted[size_t(i)]);
        const double rate = double(Bytes) / seconds[size_t(i)] / 1e6;
        qInfo("connection %d: %.3f s, %.3f MB/s", i, seconds[size_t(i)], rate);
        QCOMPARE(sizes[size_t(i)], Bytes);
        QVERIFY2(rate >= 1.5 && rate <= 2.5, qPrintable(QString::number(rate)));
    }
    ::close(listener);
}

void TestLinksim::rttDelaysEachRoundTrip()
{
    quint16 target = 0;
    const int listener = listenLoopback(target);
    LinksimProcess linksim;
    QVERIFY2(linksim.start({target}, {QStringLiteral("--rtt"), QStringLiteral("100")}),
             qPrintable(linksim.errorText()));
    const int fd = connectTo(linksim.ports().at(0));
    QVERIFY(fd >= 0);
    const int server = acceptOne(listener);
    std::thread echoer([server] { echo(server); });
    for (int exchange = 0; exchange < 3; ++exchange) {
        QElapsedTimer clock;
        clock.start();
        const char request = char('a' + exchange);
        QVERIFY(sendAll(fd, &request, 1));
        char response = 0;
        QCOMPARE(::recv(fd, &response, 1, 0), ssize_t(1));
        const qint64 ms = clock.elapsed();
        qInfo("round trip %d: %lld ms", exchange, ms);
        QCOMPARE(response, request);
        QVERIFY2(ms >= 100 && ms < 1000, qPrintable(QString::number(ms)));
    }
    ::shutdown(fd, SHUT_WR);
    echoer.join();
    ::close(server);
    ::close(fd);
    ::close(listener);
}

void TestLinksim::slowReaderMeetsBackpressure()
{
    quint16 target = 0;
    const int listener = listenLoopback(target);
    LinksimProcess linksim;
    QVERIFY2(linksim.start({target}, {QStringLiteral("--buffer"), QStringLiteral("1MiB")}),
             qPrintable(linksim.errorText()));
    const QByteArray data = pattern(64 * 1024 * 1024, 3);
    const int fd = connectTo(linksim.ports().at(0));
    QVERIFY(fd >= 0);
    const int server = acceptOne(listener); // ... and read nothing yet

    // Write without blocking until the sender has been stuck for a whole second.
    qsizetype accepted = 0;
    bool stalled = false;
    while (accepted < data.size() && !stalled) {
        pollfd writable{fd, POLLOUT, 0};
        if (::poll(&writable, 1, 1000) == 0) {
            stalled = true;
            break;
        }
        const ssize_t sent = ::send(fd, data.constData() + accepted, size_t(data.size() - accepted),
                                    MSG_DONTWAIT | MSG_NOSIGNAL);
        if (sent > 0)
            accepted += sent;
    }
    const qint64 peakKiB = linksim.peakRssKiB();
    qInfo("sender stalled after %lld bytes; linksim peak RSS %lld KiB", qint64(accepted), peakKiB);
    QVERIFY2(stalled, "linksim kept reading from a sender whose receiver reads nothing");
    QVERIFY(accepted < 48 * 1024 * 1024); // 1 MiB buffer plus the kernel's socket buffers
    QVERIFY(peakKiB > 0 && peakKiB < 24 * 1024);

    // The reader wakes up: everything arrives, in order.
    QByteArray received;
    std::thread sink([&] { received = readToEnd(server); });
    QVERIFY(sendAll(fd, data.constData() + accepted, data.size() - accepted));
    ::shutdown(fd, SHUT_WR);
    sink.join();
    QVERIFY(received == data);
    ::close(server);
    ::close(fd);
    ::close(listener);
}

void TestLinksim::acknowledgedIsWhatTheLinkTook()
{
    // A real path acknowledges a byte once it has crossed the bottleneck. Behind linksim, the
    // bytes in its receive buffers are acknowledged too, so a sender counting what was
    // acknowledged (Multilane's tuner does) sees them as carried: with many connections sharing
    // the link, those buffers must hold little, or they hide seconds of the link.
    quint16 target = 0;
    const int listener = listenLoopback(target);
    LinksimProcess linksim;
    QVERIFY2(linksim.start({target}, {QStringLiteral("--total-rate"), QStringLiteral("2MB/s")}),
             qPrintable(linksim.errorText()));
    constexpr int Connections = 48;
    std::vector<int> clients;
    std::vector<int> accepted;
    QVERIFY(connectMany(linksim.ports().at(0), listener, Connections, clients, accepted));
    std::atomic<qint64> received{0};
    std::atomic<bool> done{false};
    std::thread sink([&] { countArrivals(accepted, received, [&] { return !done; }); });
    // Every connection writes all it can until the link has carried 1 MB (half a second of it).
    QElapsedTimer clock;
    clock.start();
    const std::vector<qint64> written = writeInTurn(clients, std::numeric_limits<qint64>::max(), [&] {
        return received < 1'000'000 && clock.elapsed() < 30'000;
    });
    qint64 acknowledged = 0;
    for (int i = 0; i < Connections; ++i) {
        int unacknowledged = 0; // sent and not yet acknowledged, plus not yet sent
        ::ioctl(clients[size_t(i)], SIOCOUTQ, &unacknowledged);
        acknowledged += written[size_t(i)] - unacknowledged;
    }
    const qint64 carried = received;
    done = true;
    sink.join();
    QVERIFY2(carried >= 1'000'000, "the link carried less than 1 MB in 30 s");
    for (int i = 0; i < Connections; ++i) {
        ::close(clients[size_t(i)]);
        ::close(accepted[size_t(i)]);
    }
    ::close(listener);
    qInfo("acknowledged %lld bytes, the link carried %lld", acknowledged, carried);
    // Each connection keeps the buffer of the share it had when it opened, 8 KiB at the least
    // (which the kernel doubles): about half a megabyte in all. Sized for the whole link's rate,
    // each would hold 40 KB and more, 2 MB and more in all.
    QVERIFY2(
        acknowledged - carried < 1'000'000,
        qPrintable(QStringLiteral("%1 bytes acknowledged ahead of the link").arg(acknowledged - carried)));
}

void TestLinksim::connectionsOpeningLoseNoSegments()
{
    // linksim keeps its receive buffers to a connection's share of the link, and the share falls
    // as connections open. A buffer shrunk under the window a connection was already given (at
    // its handshake, by the listener's buffer) makes the kernel drop its segments:
    // retransmissions and, on loopback, 200 ms timeouts that no real link of this rate has.
    quint16 target = 0;
    const int listener = listenLoopback(target);
    LinksimProcess linksim;
    QVERIFY2(linksim.start({target}, {QStringLiteral("--total-rate"), QStringLiteral("40MB/s")}),
             qPrintable(linksim.errorText()));
    constexpr int Streaming = 4;
    constexpr int Idle = 40;
    constexpr qint64 BytesEach = 4'000'000;
    std::vector<int> idleClients;
    std::vector<int> idleAccepted;
    QVERIFY(connectMany(linksim.ports().at(0), listener, Idle, idleClients, idleAccepted));
    std::vector<int> clients;
    std::vector<int> accepted;
    QVERIFY(connectMany(linksim.ports().at(0), listener, Streaming, clients, accepted));
    std::atomic<qint64> received{0};
    QElapsedTimer clock;
    clock.start();
    std::thread sink([&] {
        countArrivals(accepted, received,
                      [&] { return received < Streaming * BytesEach && clock.elapsed() < 30'000; });
    });
    std::thread writer([&] { writeInTurn(clients, BytesEach, [] { return true; }); });
    writer.join();
    sink.join();
    qint64 retransmitted = 0;
    for (int fd : clients) {
        tcp_info info{};
        socklen_t length = sizeof info;
        QCOMPARE(::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length), 0);
        retransmitted += info.tcpi_total_retrans;
    }
    for (int fd : clients)
        ::close(fd);
    for (int fd : accepted)
        ::close(fd);
    for (int fd : idleClients)
        ::close(fd);
    for (int fd : idleAccepted)
        ::close(fd);
    ::close(listener);
    QCOMPARE(received.load(), Streaming * BytesEach);
    qInfo("%lld segments retransmitted over %lld bytes", retransmitted, received.load());
    // Buffers shrunk under the window lose segments by the hundred here (8 to 10 per megabyte). A
    // machine busy with other work (a sanitizer build beside other suites) retransmits a few now
    // and then: an acknowledgement processed after the loss probe's timeout, a segment dropped
    // while linksim held the socket. Up to three per megabyte pass.
    QVERIFY2(retransmitted <= 3 * Streaming * BytesEach / 1'000'000,
             qPrintable(QStringLiteral("%1 segments retransmitted").arg(retransmitted)));
}

void TestLinksim::bytesArriveExactBothWays_data()
{
    QTest::addColumn<QStringList>("shaping");
    QTest::addColumn<int>("bytes");
    QTest::newRow("unshaped") << QStringList{} << 64 * 1024 * 1024;
    QTest::newRow("shaped") << QStringList{QStringLiteral("--per-connection-rate"),
                                           QStringLiteral("40MB/s"),
                                           QStringLiteral("--total-rate"),
                                           QStringLiteral("30MB/s"),
                                           QStringLiteral("--rtt"),
                                           QStringLiteral("20"),
                                           QStringLiteral("--buffer"),
                                           QStringLiteral("300000")}
                            << 8 * 1024 * 1024;
}

void TestLinksim::bytesArriveExactBothWays()
{
    QFETCH(QStringList, shaping);
    QFETCH(int, bytes);
    quint16 target = 0;
    const int listener = listenLoopback(target);
    LinksimProcess linksim;
    QVERIFY2(linksim.start({target}, shaping), qPrintable(linksim.errorText()));
    const QByteArray data = pattern(bytes, 4);
    const int fd = connectTo(linksim.ports().at(0));
    QVERIFY(fd >= 0);
    const int server = acceptOne(listener);
    std::thread echoer([server] { echo(server); });
    QElapsedTimer clock;
    clock.start();
    std::thread sender([&] {
        sendAll(fd, data.constData(), data.size());
        ::shutdown(fd, SHUT_WR);
    });
    const QByteArray echoed = readToEnd(fd);
    const double seconds = double(clock.nsecsElapsed()) / 1e9;
    sender.join();
    echoer.join();
    qInfo("%d bytes there and back in %.3f s: %.0f MB/s", bytes, seconds, bytes / seconds / 1e6);
    QVERIFY(echoed == data);
    ::close(server);
    ::close(fd);
    ::close(listener);
}

void TestLinksim::stopsCleanlyOnSigterm()
{
    quint16 target = 0;
    const int listener = listenLoopback(target);
    LinksimProcess linksim;
    QVERIFY2(linksim.start({target, target}, {QStringLiteral("--quiet")}), qPrintable(linksim.errorText()));
    QCOMPARE(linksim.ports().size(), 2);
    const int fd = connectTo(linksim.ports().at(1)); // an open connection must not hold it up
    QVERIFY(fd >= 0);
    linksim.process().terminate();
    QVERIFY(linksim.process().waitForFinished(5000));
    QCOMPARE(linksim.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(linksim.process().exitCode(), 0);
    ::close(fd);
    ::close(listener);
}

QTEST_GUILESS_MAIN(TestLinksim)
#include "tst_linksim.moc"
