#pragma once

#include <QByteArray>
#include <array>
#include <mutex>

namespace multilane {

// One mutex per upload (by stripe), held around each pwrite() into its data file.
//
// Why: buffered writes into one file take the inode's lock in the kernel, so concurrent chunk
// writers of one upload never write in parallel anyway; but a waiter spins on the lock while
// its owner runs (the kernel's optimistic spinning), and on a two-core machine that spinner
// also slows the owner's copy. Waiting here sleeps instead (docs/performance.md, "Cost").
// Stripes, not one mutex per id: nothing to create or forget, and two uploads share one only
// by chance of their hash.
class WriteLockStripes {
public:
    std::mutex &of(const QByteArray &uploadId) { return m_stripes[qHash(uploadId) % m_stripes.size()]; }

private:
    std::array<std::mutex, 64> m_stripes;
};

} // namespace multilane
