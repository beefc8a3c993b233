#pragma once

#include "Result.h"
#include "UploadTypes.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace multilane {

class DirectorySync;

// Moves a finished, synced temporary file to its destination below the storage folder and
// applies the conflict policy. Every name is claimed with renameat2(RENAME_NOREPLACE), so two
// processes finishing files for one path never pick the same name or overwrite each other. The
// folder's fsync after the rename goes through `folderSync`, shared by the store's requests.
class FilePlacer {
public:
    FilePlacer(const QByteArray &storageRoot, DirectorySync &folderSync);

    // What sits at `path` now; sha256 only when its size equals sizeForHash.
    std::optional<ExistingFile> existing(const QString &path, qint64 sizeForHash) const;

    // Before any byte is stored: the file at `path`, and whether the policy already settles it
    // (skip, or an identical file when sha256 is known) — or a conflict error for policy fail.
    struct Preflight {
        std::optional<ExistingFile> existing;
        std::optional<FinishedFile> skipped;
    };
    Result<Preflight> preflight(const QString &path, qint64 size, ConflictPolicy policy,
                                const QByteArray &sha256) const;

    // On success the source is gone (moved, or removed because an identical file was there or
    // the policy said skip). On a conflict (policy fail) the source is left where it was.
    Result<FinishedFile> place(const QByteArray &source, const QString &path, ConflictPolicy policy,
                               const QByteArray &sha256) const;

    // "a/b.txt", 2 -> "a/b (2).txt"
    static QString numberedName(const QString &path, int number);

private:
    static ProtocolError conflict(const QString &path);
    QByteArray nativePath(const QString &path) const;
    // 0, EEXIST when the name is taken, or another errno.
    static int moveNoReplace(const QByteArray &source, const QByteArray &target);

    QByteArray m_root;
    DirectorySync &m_folderSync;
};

} // namespace multilane
