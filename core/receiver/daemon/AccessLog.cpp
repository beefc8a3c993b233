#include "AccessLog.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace multilane {

namespace {

bool isStderr(const QString &target)
{
    return target == QLatin1String("-");
}

} // namespace

AccessLog::AccessLog(QString target)
    : m_target(std::move(target))
{}

AccessLog::~AccessLog()
{
    if (m_fd >= 0 && !isStderr(m_target))
        ::close(m_fd);
}

std::optional<QString> AccessLog::open()
{
    if (isStderr(m_target)) {
        m_fd = STDERR_FILENO;
        return std::nullopt;
    }
    const QByteArray path = m_target.toLocal8Bit();
    const int fd = ::open(path.constData(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0) {
        const int error = errno;
        return QStringLiteral("cannot open the access log %1: %2; check that its folder exists and is "
                              "writable, or use --access-log - for stderr")
            .arg(m_target, QString::fromLocal8Bit(std::strerror(error)));
    }
    const QMutexLocker locker(&m_mutex);
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = fd;
    return std::nullopt;
}

void AccessLog::write(const QString &line)
{
    const QByteArray bytes = line.toUtf8() + '\n';
    const QMutexLocker locker(&m_mutex);
    // A regular file always polls writable; a pipe only with room, so this never waits on a reader.
    pollfd ready{m_fd, POLLOUT, 0};
    if (m_fd < 0 || ::poll(&ready, 1, 0) != 1 || !(ready.revents & POLLOUT)) {
        ++m_dropped;
        return;
    }
    qsizetype done = 0;
    while (m_fd >= 0 && done < bytes.size()) {
        const ssize_t written = ::write(m_fd, bytes.constData() + done, std::size_t(bytes.size() - done));
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            return; // a full disk must not stop uploads; the line is lost
        done += written;
    }
}

} // namespace multilane
