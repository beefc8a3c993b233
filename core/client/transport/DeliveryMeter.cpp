#include "DeliveryMeter.h"

#include "OwnTcpSockets.h"
#include "TcpInfo.h"

#ifdef Q_OS_LINUX
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#endif

namespace multilane {

bool DeliveryMeter::isAvailable() const
{
    return OwnTcpSockets::isSupported();
}

DeliveryMeter::Sample DeliveryMeter::sample(const QList<quint16> &peerPorts)
{
    Sample sample;
#ifdef Q_OS_LINUX
    QHash<quint64, quint64> seen;
    double rttSum = 0;
    OwnTcpSockets::forEach([&](int fd, quint64 inode) {
        if (!peerPorts.isEmpty()) {
            sockaddr_storage peer{};
            socklen_t peerLength = sizeof peer;
            if (::getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &peerLength) != 0)
                return;
            const quint16 port =
                ntohs(peer.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6 &>(peer).sin6_port
                                                 : reinterpret_cast<sockaddr_in &>(peer).sin_port);
            if (!peerPorts.contains(port))
                return;
        }
        const std::optional<TcpInfo::Reading> info = TcpInfo::read(fd);
        if (!info)
            return;
        ++sample.connections;
        int queued = 0; // SIOCOUTQ on TCP: written and not acknowledged, sent or not
        if (::ioctl(fd, SIOCOUTQ, &queued) == 0)
            sample.queuedBytes += queued;
        const quint64 acked = info->bytesAcked;
        // A connection seen for the first time counts from now: what it carried before (a probe
        // connection's bytes, the burst a new connection drops into the peer's receive buffer
        // in its first instants) says nothing about the rate from here on.
        const quint64 before = m_ackedBySocket.value(inode, acked);
        if (acked > before) {
            m_total += qint64(acked - before);
            ++sample.busyConnections;
            rttSum += info->rttMs;
        }
        if (info->minRttMs > 0 && (m_minRttMs <= 0 || info->minRttMs < m_minRttMs))
            m_minRttMs = info->minRttMs;
        seen.insert(inode, acked);
    });
    m_ackedBySocket = seen; // connections that closed are gone; what they acknowledged stays counted
    sample.smoothedRttMs = sample.busyConnections > 0 ? rttSum / sample.busyConnections : 0;
#endif
    sample.ackedBytes = m_total;
    sample.minRttMs = m_minRttMs;
    return sample;
}

} // namespace multilane
