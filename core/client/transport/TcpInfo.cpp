#include "TcpInfo.h"

#ifdef Q_OS_LINUX
// The kernel's own header: glibc's struct tcp_info stops before bytes_acked and min_rtt.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#endif

namespace multilane::TcpInfo {

std::optional<Reading> read(int fd)
{
#ifdef Q_OS_LINUX
    if (fd < 0)
        return std::nullopt;
    tcp_info info{};
    socklen_t length = sizeof info;
    if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0)
        return std::nullopt;
    return Reading{info.tcpi_bytes_acked, info.tcpi_rtt / 1000.0, info.tcpi_min_rtt / 1000.0};
#else
    Q_UNUSED(fd);
    return std::nullopt;
#endif
}

} // namespace multilane::TcpInfo
