#include "FilePlacer.h"

#include "DirectorySync.h"
#include "FileOps.h"
#include "Sha256.h"
#include "StorageError.h"

#include <QFile>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace multilane {

namespace {

constexpr int MaxRenameAttempts = 10000;

QByteArray parentOf(const QByteArray &relative)
{
    const qsizetype slash = relative.lastIndexOf('/');
    return slash < 0 ? QByteArray() : relative.left(slash);
}

} // namespace

FilePlacer::FilePlacer(const QByteArray &storageRoot, DirectorySync &folderSync)
    : m_root(storageRoot)
    , m_folderSync(folderSync)
{}

QByteArray FilePlacer::nativePath(const QString &path) const
{
    return m_root + '/' + path.toUtf8();
}

std::optional<ExistingFile> FilePlacer::existing(const QString &path, qint64 sizeForHash) const
{
    const QByteArray native = nativePath(path);
    const auto size = FileOps::regularFileSize(native);
    if (!size)
        return std::nullopt;
    ExistingFile file{*size, {}};
    if (*size == sizeForHash)
        file.sha256 = Sha256::ofFile(QFile::decodeName(native)).value_or(QByteArray());
    return file;
}

Result<FilePlacer::Preflight> FilePlacer::preflight(const QString &path, qint64 size, ConflictPolicy policy,
                                                    const QByteArray &sha256) const
{
    Preflight result;
    result.existing = existing(path, size);
    if (!result.existing)
        return result;
    const bool identical = !sha256.isEmpty() && result.existing->sha256 == sha256;
    if (identical || policy == ConflictPolicy::Skip)
        result.skipped = FinishedFile{FinishedFile::Status::Skipped, path, result.existing->sha256};
    else if (policy == ConflictPolicy::Fail)
        return conflict(path);
    return result;
}

ProtocolError FilePlacer::conflict(const QString &path)
{
    return ProtocolError::make(
        ProtocolErrorCode::Conflict,
        QStringLiteral("'%1' already exists on the receiver and onConflict is fail; choose "
                       "rename, overwrite or skip, or remove it there")
            .arg(path));
}

QString FilePlacer::numberedName(const QString &path, int number)
{
    const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
    const qsizetype dot = path.lastIndexOf(QLatin1Char('.'));
    // A dot that starts the name (".bashrc") is not an extension.
    const bool hasExtension = dot > slash + 1;
    const QString stem = hasExtension ? path.left(dot) : path;
    const QString extension = hasExtension ? path.mid(dot) : QString();
    return stem % QStringLiteral(" (") % QString::number(number) % QLatin1Char(')') % extension;
}

int FilePlacer::moveNoReplace(const QByteArray &source, const QByteArray &target)
{
    if (::renameat2(AT_FDCWD, source.constData(), AT_FDCWD, target.constData(), RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return errno;
    // File systems without RENAME_NOREPLACE: link() also refuses an existing name.
    if (::link(source.constData(), target.constData()) != 0)
        return errno;
    ::unlink(source.constData());
    return 0;
}

Result<FinishedFile> FilePlacer::place(const QByteArray &source, const QString &path, ConflictPolicy policy,
                                       const QByteArray &sha256) const
{
    const QByteArray parent = parentOf(path.toUtf8());
    if (!parent.isEmpty()) {
        const int error = FileOps::makeDirectories(m_root, parent);
        if (error == ENOTDIR || error == EEXIST)
            return ProtocolError::make(
                ProtocolErrorCode::Conflict,
                QStringLiteral("cannot create the folder for '%1': a file is in the way; "
                               "rename or remove it on the receiver")
                    .arg(path));
        if (error != 0)
            return StorageError::fromErrno(error,
                                           QStringLiteral("cannot create the folder for '%1'").arg(path));
    }

    const auto skipped = [&](const QString &where) {
        ::unlink(source.constData());
        return FinishedFile{FinishedFile::Status::Skipped, where, sha256};
    };
    // An identical file already there (since the preflight) is kept and this one dropped. Only
    // asked where a file is in the way: two stat() calls a file otherwise.
    const auto identicalThere = [&] {
        const auto current = existing(path, FileOps::regularFileSize(source).value_or(-1));
        return current && !current->sha256.isEmpty() && current->sha256 == sha256;
    };

    QString finalPath = path;
    int error = 0;
    if (policy == ConflictPolicy::Overwrite) {
        if (identicalThere())
            return skipped(path);
        error = ::rename(source.constData(), nativePath(path).constData()) == 0 ? 0 : errno;
    } else {
        error = moveNoReplace(source, nativePath(path));
        if (error == EEXIST && identicalThere())
            return skipped(path);
        for (int number = 1;
             policy == ConflictPolicy::Rename && error == EEXIST && number <= MaxRenameAttempts; ++number) {
            finalPath = numberedName(path, number);
            error = moveNoReplace(source, nativePath(finalPath));
        }
    }
    if (error == EEXIST && policy == ConflictPolicy::Skip)
        return skipped(path);
    if (error == EEXIST || error == EISDIR || error == ENOTEMPTY)
        return conflict(path);
    if (error != 0)
        return StorageError::fromErrno(error,
                                       QStringLiteral("cannot move the finished file to '%1'").arg(path));

    // The rename is only durable once the folder's entry is on disk.
    const QByteArray folder = parent.isEmpty() ? m_root : m_root + '/' + parent;
    if (const int syncError = m_folderSync.sync(folder); syncError != 0)
        return StorageError::fromErrno(syncError, QStringLiteral("cannot sync the folder of '%1'").arg(path));
    return FinishedFile{FinishedFile::Status::Stored, finalPath, sha256};
}

} // namespace multilane
