#include "UploadSweeper.h"

#include "ChunkLayout.h"
#include "ChunkRecordFile.h"
#include "DoneRecord.h"
#include "FileOps.h"
#include "UploadId.h"
#include "UploadRecord.h"

#include <QDateTime>
#include <QSet>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

namespace multilane {

namespace {

constexpr const char *UploadSuffixes[] = {".json", ".part", ".chunks"};

std::optional<UploadSweeper::Clock::time_point> modified(const QByteArray &path)
{
    struct stat info {};
    if (::lstat(path.constData(), &info) != 0)
        return std::nullopt;
    return UploadSweeper::Clock::time_point(std::chrono::seconds(info.st_mtim.tv_sec) +
                                            std::chrono::nanoseconds(info.st_mtim.tv_nsec));
}

QString timeText(UploadSweeper::Clock::time_point when)
{
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count();
    return QDateTime::fromMSecsSinceEpoch(ms).toString(Qt::ISODate);
}

QList<QByteArray> namesIn(const QByteArray &folder)
{
    QList<QByteArray> names;
    DIR *dir = ::opendir(folder.constData());
    if (!dir)
        return names;
    while (const dirent *entry = ::readdir(dir)) {
        const QByteArray name(entry->d_name);
        if (name != "." && name != "..")
            names.append(name);
    }
    ::closedir(dir);
    return names;
}

} // namespace

UploadSweeper::UploadSweeper(const QByteArray &uploadsFolder, Policy policy)
    : m_uploads(uploadsFolder)
    , m_policy(policy)
{}

bool UploadSweeper::isOld(const QByteArray &path, Clock::time_point now, std::chrono::seconds age) const
{
    const auto when = modified(path);
    return when && now - *when > age;
}

QList<UploadSweeper::Removed> UploadSweeper::sweep(Clock::time_point now) const
{
    QList<Removed> removed;
    QSet<QByteArray> uploads;
    for (const QByteArray &name : namesIn(m_uploads)) {
        const QByteArray path = m_uploads + '/' + name;
        if (name.contains(".tmp-")) {
            const auto when = modified(path);
            if (when && now - *when > m_policy.leftoverAfter && ::unlink(path.constData()) == 0)
                removed.append({{},
                                QStringLiteral("removed the leftover temporary file %1 (last written %2)")
                                    .arg(QString::fromLocal8Bit(name), timeText(*when))});
            continue;
        }
        const qsizetype dot = name.indexOf('.');
        const QByteArray id = name.left(dot);
        if (dot < 0 || !UploadId::isValid(id) || m_policy.expireAfter.count() == 0)
            continue;
        if (name.mid(dot) == ".done") {
            const auto record = DoneRecord::decode(FileOps::readSmallFile(path).value_or(QByteArray()));
            if (isOld(path, now, m_policy.expireAfter) && ::unlink(path.constData()) == 0)
                removed.append({id, QStringLiteral("removed the completion record of %1 (%2)")
                                        .arg(QString::fromLatin1(id),
                                             record ? record->file.path : QStringLiteral("unreadable"))});
        } else {
            uploads.insert(id);
        }
    }
    for (const QByteArray &id : std::as_const(uploads)) {
        if (const auto expired = expireUpload(id, now))
            removed.append(*expired);
    }
    return removed;
}

std::optional<UploadSweeper::Removed> UploadSweeper::expireUpload(const QByteArray &id,
                                                                  Clock::time_point now) const
{
    const QByteArray base = m_uploads + '/' + id;
    const auto untouched = [&]() -> std::optional<Clock::time_point> {
        std::optional<Clock::time_point> newest;
        for (const char *suffix : UploadSuffixes) {
            const auto when = modified(base + suffix);
            if (when && (!newest || *when > *newest))
                newest = when;
        }
        return newest;
    };
    const auto before = untouched();
    if (!before || now - *before <= m_policy.expireAfter)
        return std::nullopt;

    // Hold what a complete holds, or leave the upload alone; with the lock, look again, since a
    // writer may have finished a chunk just before.
    ChunkRecordFile records;
    const bool hasRecords = records.open(base + ".chunks") == 0;
    if (hasRecords && (records.tryLockAll() != 0 || records.isRemoved()))
        return std::nullopt;
    const auto last = untouched();
    if (!last || now - *last <= m_policy.expireAfter)
        return std::nullopt;
    const auto spec = UploadRecord::decode(FileOps::readSmallFile(base + ".json").value_or(QByteArray()));
    QString held;
    if (hasRecords && spec) {
        const qint64 count = ChunkLayout(spec->size, spec->chunkSize).chunkCount();
        if (const auto chunks = records.heldChunks(count))
            held = QStringLiteral(", %1 of %2 chunks held").arg(chunks->indexes.size()).arg(count);
    }
    for (const char *suffix : UploadSuffixes)
        ::unlink(QByteArray(base + suffix).constData()); // .chunks among them while still locked
    return Removed{id,
                   QStringLiteral("expired the unfinished upload %1 (%2%3), untouched since %4")
                       .arg(QString::fromLatin1(id), spec ? spec->path : QStringLiteral("no record"), held,
                            timeText(*last)),
                   true};
}

} // namespace multilane
