#include "NoDelaySockets.h"

#include <QNetworkReply>
#include <QTimer>

#include "OwnTcpSockets.h"

#ifdef Q_OS_LINUX
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#endif

namespace multilane::NoDelaySockets {

// Many connections open at once when the level rises: one sweep on the next turn of the event
// loop serves them all. (A sweep per reply walked every descriptor of the process for each new
// connection, twice; with a hundred opening together, the walks held up the thread that feeds
// the connections their bodies for a good part of a second.)
static void sweepSoon()
{
    static bool scheduled = false;
    if (scheduled)
        return;
    scheduled = true;
    QTimer::singleShot(0, [] {
        scheduled = false;
        sweep();
    });
}

void watch(QNetworkReply *reply)
{
    // Only a reply that opens a connection sweeps: when it starts connecting (the socket may not
    // be there yet, Qt connects in its own thread) and once more when its request is sent.
    QObject::connect(reply, &QNetworkReply::socketStartedConnecting, reply, [reply] {
        sweepSoon();
        QObject::connect(
            reply, &QNetworkReply::requestSent, reply, [] { sweepSoon(); }, Qt::SingleShotConnection);
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
