#include "SourceScanner.h"

#include "UploadPath.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <algorithm>

namespace multilane {

static void addFile(SourceScanner::Result &result, const QFileInfo &info, const QString &destination)
{
    const QByteArray utf8 = destination.toUtf8();
    if (const auto problem = UploadPath::problem(utf8)) {
        result.errors.append(QStringLiteral("cannot send %1: %2").arg(info.filePath(), *problem));
        return;
    }
    if (!info.isReadable()) {
        result.errors.append(QStringLiteral("cannot read %1: permission denied").arg(info.filePath()));
        return;
    }
    SourceFile file;
    file.localPath = info.absoluteFilePath();
    file.destinationPath = destination;
    file.size = info.size();
    file.mtimeMs = info.lastModified().toMSecsSinceEpoch();
    result.files.append(file);
}

static QString folderName(const QFileInfo &info)
{
    // "photos/" and "." must still land under the folder's own name.
    return QFileInfo(info.canonicalFilePath()).fileName();
}

SourceScanner::Result SourceScanner::scan(const QStringList &paths, const QString &destinationPrefix)
{
    Result result;
    for (const QString &path : paths) {
        const QFileInfo info(path);
        if (!info.exists()) {
            result.errors.append(QStringLiteral("no such file or folder: %1").arg(path));
            continue;
        }
        if (info.isFile()) {
            addFile(result, info, UploadPath::join(destinationPrefix, info.fileName()));
            continue;
        }
        if (!info.isDir()) {
            result.errors.append(QStringLiteral("not a regular file or folder: %1").arg(path));
            continue;
        }
        const QString base = UploadPath::join(destinationPrefix, folderName(info));
        if (base.isEmpty()) {
            result.errors.append(
                QStringLiteral("cannot send the root folder itself; name a folder below it"));
            continue;
        }
        const QDir root(info.absoluteFilePath());
        QList<QFileInfo> found;
        QDirIterator it(root.path(), QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            found.append(it.fileInfo());
        }
        // A stable order makes progress output and tests predictable.
        std::sort(found.begin(), found.end(),
                  [](const QFileInfo &a, const QFileInfo &b) { return a.filePath() < b.filePath(); });
        for (const QFileInfo &entry : std::as_const(found))
            addFile(result, entry, UploadPath::join(base, root.relativeFilePath(entry.filePath())));
    }
    return result;
}

} // namespace multilane
