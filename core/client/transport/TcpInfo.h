#pragma once

#include <QtGlobal>
#include <optional>

namespace multilane::TcpInfo {

// What the kernel says of one TCP connection (Linux TCP_INFO; elsewhere nothing).
struct Reading {
    quint64 bytesAcked = 0; // of what was sent, acknowledged by the peer
    double rttMs = 0;       // smoothed round trip
    double minRttMs = 0;    // the smallest round trip seen (0: not known)
};

// Whether read() can tell anything on this platform.
constexpr bool isSupported()
{
#ifdef Q_OS_LINUX
    return true;
#else
    return false;
#endif
}
// nullopt when `fd` is not a TCP socket or the platform cannot tell.
std::optional<Reading> read(int fd);

} // namespace multilane::TcpInfo
