#include "SourceScanner.h"

#include "LocalFileStat.h"
#include "UploadPath.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace multilane {

static QString kindOf(mode_t mode)
{
    if (S_ISFIFO(mode))
        return QStringLiteral("a FIFO (named pipe)");
    if (S_ISSOCK(mode))
        return QStringLiteral("a socket");
    if (S_ISCHR(mode))
        return QStringLiteral("a character device");
    if (S_ISBLK(mode))
        return QStringLiteral("a block device");
    return QStringLiteral("not a regular file");
}

// Why the entry at `path` is not sent, as notSendable() says; when it is sent, `followed` is
// what it is (the link's target for a symbolic link), so one lstat() a file is all the scan needs.
static std::optional<QString> inspect(const QString &path, struct stat &followed)
{
    const QByteArray encoded = QFile::encodeName(path);
    if (::lstat(encoded.constData(), &followed) != 0) {
        // Listed by the folder, yet not found under the name decoded from it: bytes that are not
        // UTF-8 do not survive the decoding.
        return errno == ENOENT
                   ? QStringLiteral("a name that cannot be opened as listed (not UTF-8?); rename it")
                   : QString::fromLocal8Bit(std::strerror(errno));
    }
    if (S_ISREG(followed.st_mode) || S_ISDIR(followed.st_mode))
        return std::nullopt;
    if (!S_ISLNK(followed.st_mode))
        return kindOf(followed.st_mode);
    if (::stat(encoded.constData(), &followed) != 0) {
        if (errno == ELOOP)
            return QStringLiteral("a symbolic link loop");
        const QString to = QFileInfo(path).symLinkTarget();
        if (errno == ENOENT)
            return QStringLiteral("a dangling symbolic link (to %1, which does not exist)").arg(to);
        return QStringLiteral("a symbolic link to %1, which cannot be reached: %2")
            .arg(to, QString::fromLocal8Bit(std::strerror(errno)));
    }
    if (S_ISREG(followed.st_mode))
        return std::nullopt;
    if (S_ISDIR(followed.st_mode))
        return QStringLiteral("a symbolic link to a folder (not followed)");
    return QStringLiteral("a symbolic link to %1").arg(kindOf(followed.st_mode));
}

std::optional<QString> SourceScanner::notSendable(const QString &path)
{
    struct stat followed {};
    return inspect(path, followed);
}

static bool isReadable(const QString &path, const struct stat &entry)
{
    // The owner's read bit decides for the owner, so most files need no access() call of their
    // own; root, other owners' files and a cleared bit ask the kernel (groups, ACLs).
    static const uid_t user = ::getuid();
    if (user != 0 && entry.st_uid == user && (entry.st_mode & S_IRUSR) != 0)
        return true;
    return ::access(QFile::encodeName(path).constData(), R_OK) == 0;
}

static void addFile(SourceScanner::Result &result, const QString &absolutePath, const struct stat &entry,
                    const QString &destination)
{
    const QByteArray utf8 = destination.toUtf8();
    if (const auto problem = UploadPath::problem(utf8)) {
        result.errors.append(
            QStringLiteral("cannot send %1 as %2: %3").arg(absolutePath, destination, *problem));
        return;
    }
    if (!isReadable(absolutePath, entry)) {
        result.errors.append(QStringLiteral("cannot read %1: permission denied").arg(absolutePath));
        return;
    }
    const LocalFileStat stat = LocalFileStat::from(entry);
    result.files.append(SourceFile(absolutePath, destination, stat.size, stat.mtimeMs));
}

static QString folderName(const QFileInfo &info)
{
    // "photos/" and "." must still land under the folder's own name.
    return QFileInfo(info.canonicalFilePath()).fileName();
}

static bool isListable(const QString &folder)
{
    return ::access(QFile::encodeName(folder).constData(), R_OK | X_OK) == 0;
}

static QString unlistable(const QString &folder)
{
    return QStringLiteral("cannot read the folder %1: permission denied; nothing in it is sent").arg(folder);
}

static void scanFolder(SourceScanner::Result &result, const QFileInfo &info, const QString &base)
{
    const QDir root(info.absoluteFilePath());
    if (!isListable(root.path())) {
        result.errors.append(unlistable(root.path()));
        return;
    }
    // Paths only, not QFileInfos: a QFileInfo holds about 700 bytes, and a folder of a million
    // files left that much per file of holes in the heap that the process never gave back.
    QStringList found;
    // System lists FIFOs, sockets, devices and dangling links too, so each can be named.
    QDirIterator it(root.path(), QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        found.append(it.next());
    // A stable order makes progress output and tests predictable.
    std::sort(found.begin(), found.end());
    result.files.reserve(result.files.size() + found.size());
    for (const QString &path : std::as_const(found)) {
        // The iterator's paths start with the root's absolute path.
        struct stat entry {};
        if (const auto why = inspect(path, entry)) {
            result.skipped.append({path, *why});
        } else if (S_ISDIR(entry.st_mode)) {
            // The iterator passes over a folder it cannot open without a word.
            if (!isListable(path))
                result.errors.append(unlistable(path));
        } else {
            addFile(result, path, entry,
                    UploadPath::join(base, UploadPath::escapeComponents(root.relativeFilePath(path))));
        }
    }
}

SourceScanner::Result SourceScanner::scan(const QStringList &paths, const QString &destinationPrefix)
{
    Result result;
    for (const QString &path : paths) {
        const QFileInfo info(path);
        if (!info.exists() && !info.isSymLink()) {
            result.errors.append(QStringLiteral("no such file or folder: %1").arg(path));
            continue;
        }
        if (info.isFile()) {
            struct stat entry {};
            if (::stat(QFile::encodeName(info.absoluteFilePath()).constData(), &entry) != 0)
                result.errors.append(QStringLiteral("cannot read %1: %2")
                                         .arg(path, QString::fromLocal8Bit(std::strerror(errno))));
            else
                addFile(result, info.absoluteFilePath(), entry,
                        UploadPath::join(destinationPrefix, UploadPath::escapeName(info.fileName())));
            continue;
        }
        if (!info.isDir()) {
            result.errors.append(
                QStringLiteral("not sent: %1: %2")
                    .arg(path, notSendable(path).value_or(QStringLiteral("not a regular file"))));
            continue;
        }
        const QString base = UploadPath::join(destinationPrefix, UploadPath::escapeName(folderName(info)));
        if (base.isEmpty()) {
            result.errors.append(
                QStringLiteral("cannot send the root folder itself; name a folder below it"));
            continue;
        }
        scanFolder(result, info, base);
    }
    return result;
}

} // namespace multilane
