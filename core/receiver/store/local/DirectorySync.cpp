#include "DirectorySync.h"

#include <utility>

namespace multilane {

DirectorySync::DirectorySync(SyncFolder syncFolder)
    : m_syncFolder(std::move(syncFolder))
{}

int DirectorySync::sync(const QByteArray &folder)
{
    std::unique_lock lock(m_mutex);
    Folder &entry = m_folders[folder];
    ++entry.users;
    Waiter me;
    entry.waiting.push_back(&me);
    while (!me.done) {
        if (entry.syncing) {
            entry.changed.wait(lock);
            continue;
        }
        // Everyone waiting now renamed before this fsync starts: it covers them all.
        std::vector<Waiter *> covered;
        covered.swap(entry.waiting);
        entry.syncing = true;
        lock.unlock();
        const int error = m_syncFolder(folder);
        lock.lock();
        entry.syncing = false;
        for (Waiter *waiter : covered) {
            waiter->done = true;
            waiter->error = error;
        }
        entry.changed.notify_all();
    }
    if (--entry.users == 0)
        m_folders.erase(folder);
    return me.error;
}

int DirectorySync::waiting(const QByteArray &folder)
{
    const std::lock_guard lock(m_mutex);
    const auto entry = m_folders.find(folder);
    return entry == m_folders.end() ? 0 : int(entry->second.waiting.size());
}

} // namespace multilane
