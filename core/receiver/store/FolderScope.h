#pragma once

#include <QString>

namespace multilane::FolderScope {

// True when `path` (a destination path that passed UploadPath::problem(), so it has no empty,
// '.' or '..' components) lies below `folder`, or `folder` is empty (the whole storage).
// A prefix on whole components: folder "alice" contains "alice/a.txt", not "alice2/a.txt".
inline bool contains(const QString &folder, const QString &path)
{
    if (folder.isEmpty())
        return true;
    return path.size() > folder.size() && path.startsWith(folder) && path.at(folder.size()) == u'/';
}

} // namespace multilane::FolderScope
