#include "SourceScanner.h"

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

std::optional<QString> SourceScanner::notSendable(const QString &path)
{
    const QByteArray encoded = QFile::encodeName(path);
    struct stat entry {};
    if (::lstat(encoded.constData(), &entry) != 0) {
        // Listed by the folder, yet not found under the name decoded from it: bytes that are not
        // UTF-8 do not survive the decoding.
        return errno == ENOENT
                   ? QStringLiteral("a name that cannot be opened as listed (not UTF-8?); rename it")
                   : QString::fromLocal8Bit(std::strerror(errno));
    }
    if (S_ISREG(entry.st_mode) || S_ISDIR(entry.st_mode))
        return std::nullopt;
    if (!S_ISLNK(entry.st_mode))
        return kindOf(entry.st_mode);
    struct stat target {};
    if (::stat(encoded.constData(), &target) != 0) {
        if (errno == ELOOP)
            return QStringLiteral("a symbolic link loop");
        const QString to = QFileInfo(path).symLinkTarget();
        if (errno == ENOENT)
            return QStringLiteral("a dangling symbolic link (to %1, which does not exist)").arg(to);
        return QStringLiteral("a symbolic link to %1, which cannot be reached: %2")
            .arg(to, QString::fromLocal8Bit(std::strerror(errno)));
    }
    if (S_ISREG(target.st_mode))
        return std::nullopt;
    if (S_ISDIR(target.st_mode))
        return QStringLiteral("a symbolic link to a folder (not followed)");
    return QStringLiteral("a symbolic link to %1").arg(kindOf(target.st_mode));
}

static void addFile(SourceScanner::Result &result, const QFileInfo &info, const QString &destination)
{
    const QByteArray utf8 = destination.toUtf8();
    if (const auto problem = UploadPath::problem(utf8)) {
        result.errors.append(
            QStringLiteral("cannot send %1 as %2: %3").arg(info.filePath(), destination, *problem));
        return;
    }
    if (!info.isReadable()) {
        result.errors.append(QStringLiteral("cannot read %1: permission denied").arg(info.filePath()));
        return;
    }
    result.files.append(SourceFile(info.absoluteFilePath(), destination, info.size(),
                                   info.lastModified().toMSecsSinceEpoch()));
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
        const QFileInfo entry(path);
        if (const auto why = SourceScanner::notSendable(path)) {
            result.skipped.append({path, *why});
        } else if (entry.isDir() && !entry.isSymLink()) {
            // The iterator passes over a folder it cannot open without a word.
            if (!isListable(path))
                result.errors.append(unlistable(path));
        } else {
            addFile(result, entry,
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
            addFile(result, info,
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
