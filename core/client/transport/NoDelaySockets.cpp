#include "NoDelaySockets.h"

#include <QNetworkReply>

#ifdef Q_OS_LINUX
#include <cstdlib>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
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
    DIR *fds = ::opendir("/proc/self/fd");
    if (!fds)
        return 0;
    const int own = ::dirfd(fds);
    while (const dirent *entry = ::readdir(fds)) {
        char *end = nullptr;
        const long fd = std::strtol(entry->d_name, &end, 10);
        if (end == entry->d_name || *end != '\0' || fd == own)
            continue;
        struct stat info {};
        if (::fstat(int(fd), &info) != 0 || !S_ISSOCK(info.st_mode))
            continue;
        int value = 0;
        socklen_t length = sizeof value;
        if (::getsockopt(int(fd), SOL_SOCKET, SO_PROTOCOL, &value, &length) != 0 || value != IPPROTO_TCP)
            continue;
        length = sizeof value;
        if (::getsockopt(int(fd), IPPROTO_TCP, TCP_NODELAY, &value, &length) != 0 || value != 0)
            continue;
        const int on = 1;
        if (::setsockopt(int(fd), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) == 0)
            ++changed;
    }
    ::closedir(fds);
#endif
    return changed;
}

} // namespace multilane::NoDelaySockets
