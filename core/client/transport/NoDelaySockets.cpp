#include "NoDelaySockets.h"

#include <QNetworkReply>

#include "OwnTcpSockets.h"

#ifdef Q_OS_LINUX
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#endif

namespace multilane::NoDelaySockets {

void watch(QNetworkReply *reply)
{
    // Only a reply that opens a connection sweeps: when it starts connecting (the socket may not
    // be there yet, Qt connects in its own thread) and once more when its request is sent.
    QObject::connect(reply, &QNetworkReply::socketStartedConnecting, reply, [reply] {
        sweep();
        QObject::connect(
            reply, &QNetworkReply::requestSent, reply, [] { sweep(); }, Qt::SingleShotConnection);
    });
}

int sweep()
{
    int changed = 0;
#ifdef Q_OS_LINUX
    OwnTcpSockets::forEach([&changed](int fd, quint64) {
        int value = 0;
        socklen_t length = sizeof value;
        if (::getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, &length) != 0 || value != 0)
            return;
        const int on = 1;
        if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) == 0)
            ++changed;
    });
#endif
    return changed;
}

} // namespace multilane::NoDelaySockets
