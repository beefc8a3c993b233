#include "OwnTcpSockets.h"

#ifdef Q_OS_LINUX
#include <cstdlib>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace multilane::OwnTcpSockets {

bool isSupported()
{
#ifdef Q_OS_LINUX
    return true;
#else
    return false;
#endif
}

void forEach(const std::function<void(int fd, quint64 inode)> &visit)
{
#ifdef Q_OS_LINUX
    DIR *fds = ::opendir("/proc/self/fd");
    if (!fds)
        return;
    const int own = ::dirfd(fds);
    while (const dirent *entry = ::readdir(fds)) {
        char *end = nullptr;
        const long fd = std::strtol(entry->d_name, &end, 10);
        if (end == entry->d_name || *end != '\0' || fd == own)
            continue;
        struct stat info {};
        if (::fstat(int(fd), &info) != 0 || !S_ISSOCK(info.st_mode))
            continue;
        int protocol = 0;
        socklen_t length = sizeof protocol;
        if (::getsockopt(int(fd), SOL_SOCKET, SO_PROTOCOL, &protocol, &length) != 0 ||
            protocol != IPPROTO_TCP)
            continue;
        visit(int(fd), quint64(info.st_ino));
    }
    ::closedir(fds);
#else
    Q_UNUSED(visit);
#endif
}

} // namespace multilane::OwnTcpSockets
