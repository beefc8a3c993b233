#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <chrono>
#include <functional>

namespace multilane {

// Removes what uploads left behind in <storage>/.multilane/uploads once nobody has touched it for
// a while: unfinished uploads (.json/.part/.chunks), old .done records, and temporary files of
// killed requests (put.tmp-*.part, *.tmp-*). Finished files are never touched.
//
// Safe with several receiver processes on one folder: an unfinished upload is removed only while
// holding the lock a complete holds (all records of its .chunks), taken without waiting, so an
// upload a chunk writer or complete holds is skipped; a writer that then gets its lock finds the
// records unlinked, as after a complete. Ages are file mtimes, which every chunk write moves on.
class UploadSweeper {
public:
    using Clock = std::chrono::system_clock;

    struct Policy {
        std::chrono::seconds expireAfter{7 * 24 * 3600}; // unfinished uploads and .done; 0 = never
        std::chrono::seconds leftoverAfter{3 * 3600};    // temporary files (a PUT writes every 60 s)
    };
    struct Removed {
        QByteArray id;              // empty for a temporary file
        QString line;               // for the log
        bool expiredUpload = false; // an unfinished upload (not a .done record or leftover)
    };

    UploadSweeper(const QByteArray &uploadsFolder, Policy policy);

    // One pass over the folder as of `now`.
    QList<Removed> sweep(Clock::time_point now) const;

private:
    bool isOld(const QByteArray &path, Clock::time_point now, std::chrono::seconds age) const;
    std::optional<Removed> expireUpload(const QByteArray &id, Clock::time_point now) const;

    QByteArray m_uploads;
    Policy m_policy;
};

} // namespace multilane
