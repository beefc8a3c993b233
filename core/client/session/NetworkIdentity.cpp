#include "NetworkIdentity.h"

#include "OwnTcpSockets.h"

#include <QHostAddress>
#include <QNetworkInterface>
#include <QSet>
#include <QStringList>
#include <algorithm>

#ifdef Q_OS_LINUX
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

namespace multilane {

static quint16 portOf(const QUrl &url)
{
    return quint16(url.port(url.scheme() == QLatin1String("https") ? 443 : 80));
}

// The local address the kernel picks to reach `peer`: a UDP socket connected to it (nothing is
// sent) is bound the way a TCP connection would be.
static QHostAddress routeTo(const QHostAddress &peer, quint16 port)
{
    QHostAddress local;
#ifdef Q_OS_LINUX
    sockaddr_storage address{};
    socklen_t length = 0;
    if (peer.protocol() == QAbstractSocket::IPv4Protocol) {
        auto &in = reinterpret_cast<sockaddr_in &>(address);
        in.sin_family = AF_INET;
        in.sin_port = htons(port);
        in.sin_addr.s_addr = htonl(peer.toIPv4Address());
        length = sizeof in;
    } else {
        auto &in6 = reinterpret_cast<sockaddr_in6 &>(address);
        in6.sin6_family = AF_INET6;
        in6.sin6_port = htons(port);
        const Q_IPV6ADDR bytes = peer.toIPv6Address();
        std::copy(std::begin(bytes.c), std::end(bytes.c), in6.sin6_addr.s6_addr);
        length = sizeof in6;
    }
    const int fd = ::socket(address.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return local;
    sockaddr_storage bound{};
    socklen_t boundLength = sizeof bound;
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), length) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&bound), &boundLength) == 0)
        local = QHostAddress(reinterpret_cast<sockaddr *>(&bound));
    ::close(fd);
#else
    Q_UNUSED(peer);
    Q_UNUSED(port);
#endif
    return local;
}

// For endpoints named by host name (no lookup here): where this process's open connections to
// their ports leave from.
static QSet<QHostAddress> localAddressesTo(const QList<quint16> &ports)
{
    QSet<QHostAddress> addresses;
#ifdef Q_OS_LINUX
    OwnTcpSockets::forEach([&](int fd, quint64) {
        sockaddr_storage peer{};
        sockaddr_storage local{};
        socklen_t peerLength = sizeof peer;
        socklen_t localLength = sizeof local;
        if (::getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &peerLength) != 0 ||
            ::getsockname(fd, reinterpret_cast<sockaddr *>(&local), &localLength) != 0)
            return;
        quint16 port = 0;
        if (peer.ss_family == AF_INET6)
            port = ntohs(reinterpret_cast<sockaddr_in6 &>(peer).sin6_port);
        else if (peer.ss_family == AF_INET)
            port = ntohs(reinterpret_cast<sockaddr_in &>(peer).sin_port);
        if (ports.contains(port))
            addresses.insert(QHostAddress(reinterpret_cast<sockaddr *>(&local)));
    });
#else
    Q_UNUSED(ports);
#endif
    return addresses;
}

static QString interfaceOf(const QHostAddress &address)
{
    for (const QNetworkInterface &interface : QNetworkInterface::allInterfaces()) {
        for (const QNetworkAddressEntry &entry : interface.addressEntries()) {
            if (entry.ip().isEqual(address, QHostAddress::TolerantConversion))
                return interface.name();
        }
    }
    return QStringLiteral("?");
}

QString NetworkIdentity::of(const QList<Endpoint> &endpoints)
{
    QStringList peers;
    QList<quint16> namedPorts;
    QSet<QHostAddress> locals;
    for (const Endpoint &endpoint : endpoints) {
        const quint16 port = portOf(endpoint.url);
        peers.append(
            QStringLiteral("%1://%2:%3").arg(endpoint.url.scheme(), endpoint.url.host().toLower()).arg(port));
        const QHostAddress peer(endpoint.url.host());
        if (peer.isNull())
            namedPorts.append(port);
        else if (const QHostAddress local = routeTo(peer, port); !local.isNull())
            locals.insert(local);
    }
    if (!namedPorts.isEmpty())
        locals.unite(localAddressesTo(namedPorts));
    peers.sort();
    peers.removeDuplicates();
    QStringList via;
    for (const QHostAddress &address : std::as_const(locals))
        via.append(address.toString() + u'%' + interfaceOf(address));
    via.sort();
    return peers.join(u' ') + QStringLiteral(" via ") +
           (via.isEmpty() ? QStringLiteral("?") : via.join(u' '));
}

bool NetworkIdentity::sameNetwork(const QString &a, const QString &b)
{
    // An unknown route (no connection open to a named endpoint) is no evidence of a change.
    if (a == b || a.endsWith(QLatin1String(" via ?")) || b.endsWith(QLatin1String(" via ?")))
        return a.section(QStringLiteral(" via "), 0, 0) == b.section(QStringLiteral(" via "), 0, 0);
    return false;
}

} // namespace multilane
