#include "FileOps.h"

#include "UniqueFd.h"

#include <QList>
#include <QRandomGenerator>
#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace multilane::FileOps {

namespace {

int writeAll(int fd, const QByteArray &content)
{
    qsizetype done = 0;
    while (done < content.size()) {
        const ssize_t wrote = ::write(fd, content.constData() + done, std::size_t(content.size() - done));
        if (wrote < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        done += wrote;
    }
    return 0;
}

// Writes a durable temporary file and returns its name (empty on failure, error set).
QByteArray writeTemporary(const QByteArray &path, const QByteArray &content, int &error)
{
    const QByteArray temporary = temporaryName(path);
    UniqueFd fd(::open(temporary.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (!fd.isValid()) {
        error = errno;
        return {};
    }
    error = writeAll(fd.get(), content);
    if (error == 0 && ::fsync(fd.get()) != 0)
        error = errno;
    if (error != 0) {
        ::unlink(temporary.constData());
        return {};
    }
    return temporary;
}

} // namespace

QByteArray temporaryName(const QByteArray &prefix)
{
    static const pid_t process = ::getpid(); // the receiver never forks
    QByteArray name = prefix;
    name += ".tmp-";
    name += QByteArray::number(process);
    name += '-';
    name += QByteArray::number(QRandomGenerator::global()->generate64(), 36);
    return name;
}

int replaceFile(const QByteArray &path, const QByteArray &content)
{
    int error = 0;
    const QByteArray temporary = writeTemporary(path, content, error);
    if (temporary.isEmpty())
        return error;
    if (::rename(temporary.constData(), path.constData()) != 0) {
        error = errno;
        ::unlink(temporary.constData());
        return error;
    }
    return 0;
}

int createFileOnce(const QByteArray &path, const QByteArray &content)
{
    int error = 0;
    const QByteArray temporary = writeTemporary(path, content, error);
    if (temporary.isEmpty())
        return error;
    if (::link(temporary.constData(), path.constData()) != 0)
        error = errno;
    ::unlink(temporary.constData());
    return error;
}

std::optional<QByteArray> readSmallFile(const QByteArray &path, qint64 maxBytes)
{
    UniqueFd fd(::open(path.constData(), O_RDONLY | O_CLOEXEC));
    if (!fd.isValid())
        return std::nullopt;
    QByteArray content;
    char buffer[4096];
    for (;;) {
        const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return std::nullopt;
        if (got == 0)
            return content;
        content.append(buffer, got);
        if (content.size() > maxBytes) {
            errno = EFBIG;
            return std::nullopt;
        }
    }
}

int readRange(int fd, qint64 from, qint64 to, const std::function<void(const char *, std::size_t)> &consume)
{
    constexpr qint64 PieceSize = 1 << 20;
    const std::unique_ptr<char[]> buffer(new char[PieceSize]);
    while (from < to) {
        const ssize_t got = ::pread(fd, buffer.get(), std::size_t(std::min(PieceSize, to - from)), from);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? errno : EIO;
        consume(buffer.get(), std::size_t(got));
        from += got;
    }
    return 0;
}

int syncDirectory(const QByteArray &directory)
{
    UniqueFd fd(::open(directory.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.isValid())
        return errno;
    return ::fsync(fd.get()) == 0 ? 0 : errno;
}

int makeDirectories(const QByteArray &root, const QByteArray &relativeDirs)
{
    const QList<QByteArray> parts = relativeDirs.split('/');
    for (const QByteArray &part : parts) {
        if (part.isEmpty() || part == "." || part == "..")
            return EINVAL;
    }
    // Most files land in a folder that is already there: one stat() instead of a mkdir() and a
    // stat() for every level.
    struct stat whole {};
    const QByteArray full = root + '/' + relativeDirs;
    if (::stat(full.constData(), &whole) == 0 && S_ISDIR(whole.st_mode))
        return 0;
    QByteArray path = root;
    for (const QByteArray &part : parts) {
        path += '/';
        path += part;
        if (::mkdir(path.constData(), 0755) != 0 && errno != EEXIST)
            return errno;
        struct stat info {};
        if (::stat(path.constData(), &info) != 0)
            return errno;
        if (!S_ISDIR(info.st_mode))
            return ENOTDIR;
    }
    return 0;
}

std::optional<qint64> regularFileSize(const QByteArray &path)
{
    struct stat info {};
    if (::stat(path.constData(), &info) != 0 || !S_ISREG(info.st_mode))
        return std::nullopt;
    return qint64(info.st_size);
}

bool exists(const QByteArray &path)
{
    struct stat info {};
    return ::lstat(path.constData(), &info) == 0;
}

} // namespace multilane::FileOps
