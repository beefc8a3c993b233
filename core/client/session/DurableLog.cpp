#include "DurableLog.h"

#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace multilane {

namespace {

QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

QByteArray encodedPath(const QString &path)
{
    return QFile::encodeName(path);
}

// Creates `path` and its missing parents with 0700, as the XDG spec asks for state folders.
std::optional<QString> makeDirectory(const QString &path)
{
    if (QFileInfo(path).isDir())
        return std::nullopt;
    const QString parent = QFileInfo(path).absolutePath();
    if (parent != path) {
        if (auto error = makeDirectory(parent))
            return error;
    }
    if (::mkdir(encodedPath(path).constData(), 0700) != 0 && errno != EEXIST) {
        return QStringLiteral("cannot create the resume journal folder %1: %2 — check its permissions or "
                              "pass another --state-dir")
            .arg(path, systemError(errno));
    }
    return std::nullopt;
}

bool writeAll(int fd, const QByteArray &bytes)
{
    qsizetype done = 0;
    while (done < bytes.size()) {
        const ssize_t written = ::write(fd, bytes.constData() + done, std::size_t(bytes.size() - done));
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        done += written;
    }
    return true;
}

} // namespace

DurableLog::DurableLog(const QString &directory, const QString &logName, const QString &lockName)
    : m_directory(directory)
    , m_logName(logName)
    , m_lockName(lockName)
{}

DurableLog::~DurableLog()
{
    close();
}

QString DurableLog::logPath() const
{
    return m_directory + u'/' + m_logName;
}

void DurableLog::close()
{
    if (m_fd >= 0) {
        ::fdatasync(m_fd);
        ::close(m_fd);
        m_fd = -1;
    }
    if (m_lockFd >= 0) {
        ::close(m_lockFd); // releases the flock
        m_lockFd = -1;
    }
}

std::optional<QString> DurableLog::lock()
{
    close();
    m_writeError.reset();
    if (auto error = makeDirectory(m_directory))
        return error;
    // Two processes compacting and appending to one log would lose each other's records.
    const QString lockPath = m_directory + u'/' + m_lockName;
    m_lockFd = ::open(encodedPath(lockPath).constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (m_lockFd < 0)
        return QStringLiteral("cannot open %1: %2").arg(lockPath, systemError(errno));
    if (::flock(m_lockFd, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        close();
        if (error == EWOULDBLOCK) {
            return QStringLiteral(
                       "another multilane process is using the resume journal in %1 — let it finish "
                       "or pass another --state-dir")
                .arg(m_directory);
        }
        return QStringLiteral("cannot lock %1: %2").arg(lockPath, systemError(error));
    }
    return std::nullopt;
}

std::optional<QString> DurableLog::rewrite(const QByteArray &contents)
{
    const QString newPath = logPath() + QLatin1String(".new");
    const int fd =
        ::open(encodedPath(newPath).constData(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        const int error = errno;
        close();
        return QStringLiteral("cannot write %1: %2").arg(newPath, systemError(error));
    }
    // The log holds endpoint tokens: 0600 even if an older file had wider permissions.
    if (::fchmod(fd, 0600) != 0 || !writeAll(fd, contents) || ::fsync(fd) != 0 ||
        ::rename(encodedPath(newPath).constData(), encodedPath(logPath()).constData()) != 0) {
        const int error = errno;
        ::close(fd);
        ::unlink(encodedPath(newPath).constData());
        close();
        return QStringLiteral("cannot write %1: %2").arg(newPath, systemError(error));
    }
    // Make the rename itself durable.
    const int directoryFd = ::open(encodedPath(m_directory).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directoryFd >= 0) {
        ::fsync(directoryFd);
        ::close(directoryFd);
    }
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = fd;
    m_size = contents.size();
    return std::nullopt;
}

void DurableLog::append(const QByteArray &line)
{
    if (m_fd < 0)
        return;
    if (writeAll(m_fd, line)) {
        m_size += line.size();
        return;
    }
    // Cut off a partial record so that later ones would not sit behind damage, then stop: the
    // state in memory stays right, and resume re-checks with the servers what the log lacks.
    const int error = errno;
    if (!m_writeError)
        m_writeError = QStringLiteral("cannot write %1: %2").arg(logPath(), systemError(error));
    ::ftruncate(m_fd, m_size);
    ::close(m_fd);
    m_fd = -1;
}

std::optional<QString> DurableLog::flush()
{
    if (m_fd >= 0 && ::fdatasync(m_fd) != 0 && !m_writeError)
        m_writeError = QStringLiteral("cannot write %1: %2").arg(logPath(), systemError(errno));
    return m_writeError;
}

} // namespace multilane
