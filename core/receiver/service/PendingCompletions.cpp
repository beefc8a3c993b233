#include "PendingCompletions.h"

namespace multilane {

PendingCompletions::PendingCompletions(int capacity)
    : m_capacity(capacity)
{}

void PendingCompletions::remember(const QByteArray &id, const QByteArray &sha256)
{
    const std::lock_guard<std::mutex> locked(m_mutex);
    m_entries.insert(id, {sha256, m_nextOrder++});
    if (m_entries.size() <= m_capacity)
        return;
    // Full only when clients went away between their last chunks: a scan now and then is cheap.
    auto oldest = m_entries.begin();
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
        if (it->order < oldest->order)
            oldest = it;
    }
    m_entries.erase(oldest);
}

QByteArray PendingCompletions::find(const QByteArray &id) const
{
    const std::lock_guard<std::mutex> locked(m_mutex);
    const auto it = m_entries.constFind(id);
    return it == m_entries.cend() ? QByteArray() : it->sha256;
}

void PendingCompletions::forget(const QByteArray &id)
{
    const std::lock_guard<std::mutex> locked(m_mutex);
    m_entries.remove(id);
}

} // namespace multilane
