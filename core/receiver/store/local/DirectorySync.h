#pragma once

#include <QByteArray>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

namespace multilane {

// Makes the renames into a folder durable with one fsync of the folder for all the requests that
// ask at once (group commit, as a database does with its log). On a disk with a write cache each
// fsync is a cache flush that the device serialises; with many connections finishing small files
// in one folder, each file would pay a flush for the folder besides the one for its own data.
//
// A caller returns only after an fsync that started after it called has finished, so its rename is
// covered; callers that arrive while one runs wait for the next, which covers them all.
class DirectorySync {
public:
    // Returns 0 or an errno.
    using SyncFolder = std::function<int(const QByteArray &folder)>;
    explicit DirectorySync(SyncFolder syncFolder);
    DirectorySync(const DirectorySync &) = delete;
    DirectorySync &operator=(const DirectorySync &) = delete;

    // 0 once every rename into `folder` made before the call is on disk, or the fsync's errno.
    int sync(const QByteArray &folder);
    // Callers of sync() for `folder` not yet covered by an fsync that started (for tests).
    int waiting(const QByteArray &folder);

private:
    struct Waiter {
        bool done = false;
        int error = 0;
    };
    struct Folder {
        bool syncing = false;
        int users = 0; // threads inside sync() for this folder: the entry lives while any is
        std::vector<Waiter *> waiting;
        std::condition_variable changed;
    };

    const SyncFolder m_syncFolder;
    std::mutex m_mutex;
    std::map<QByteArray, Folder> m_folders; // node-based: a Folder stays put while others come and go
};

} // namespace multilane
