#include "DirectorySync.h"
#include "FileOps.h"

#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

using namespace multilane;

namespace {

// A stand-in for fsync: counts the calls and holds each one until the test releases it, so the
// test decides who arrives while an fsync runs.
class HeldFsync {
public:
    int call(const QByteArray &)
    {
        std::unique_lock lock(m_mutex);
        const int number = ++m_started;
        m_changed.notify_all();
        m_changed.wait(lock, [&] { return m_released >= number; });
        return number <= int(m_results.size()) ? m_results.at(number - 1) : 0;
    }
    void waitStarted(int count)
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return m_started >= count; });
    }
    void release(int throughCall)
    {
        const std::lock_guard lock(m_mutex);
        m_released = throughCall;
        m_changed.notify_all();
    }
    int started()
    {
        const std::lock_guard lock(m_mutex);
        return m_started;
    }
    void setResults(std::vector<int> results) { m_results = std::move(results); }
    void releaseAll() { release(std::numeric_limits<int>::max()); }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    int m_started = 0;
    int m_released = 0;
    std::vector<int> m_results;
};

// Lets every held fsync go and joins the threads, also when a check failed half-way.
class Threads {
public:
    explicit Threads(HeldFsync &fsync)
        : m_fsync(fsync)
    {}
    ~Threads()
    {
        m_fsync.releaseAll();
        for (std::thread &thread : m_threads)
            if (thread.joinable())
                thread.join();
    }
    template<typename Work> void start(Work work) { m_threads.emplace_back(std::move(work)); }

private:
    HeldFsync &m_fsync;
    std::vector<std::thread> m_threads;
};

} // namespace

// The group commit of folder fsyncs: it must never report a rename durable on an fsync that
// started before it, and it must share one fsync among those who waited together.
class TestDirectorySync : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void callersArrivingDuringAnFsyncShareTheNext()
    {
        HeldFsync fsync;
        DirectorySync folders([&fsync](const QByteArray &folder) { return fsync.call(folder); });
        constexpr int Later = 8;
        std::atomic<int> firstResult = -1;
        std::atomic<int> laterDone = 0;
        std::vector<int> laterResults(Later, -1);
        {
            Threads threads(fsync);
            threads.start([&] { firstResult = folders.sync("d"); });
            fsync.waitStarted(1);
            for (int i = 0; i < Later; ++i)
                threads.start([&, i] {
                    laterResults[std::size_t(i)] = folders.sync("d");
                    ++laterDone;
                });
            QTRY_COMPARE(folders.waiting("d"), Later);

            fsync.release(1);
            QTRY_COMPARE(firstResult.load(), 0);
            // The fsync that was running when they came cannot cover them: they wait for a second.
            QTRY_VERIFY(fsync.started() == 2 || laterDone == Later);
            QCOMPARE(laterDone.load(), 0);
        }
        QCOMPARE(fsync.started(), 2); // one fsync for all eight, not eight
        for (const int result : laterResults)
            QCOMPARE(result, 0);
        QCOMPARE(folders.waiting("d"), 0);
    }

    void aFailedFsyncFailsEveryoneItCoveredAndNoOneAfter()
    {
        HeldFsync fsync;
        fsync.setResults({0, EIO, 0});
        DirectorySync folders([&fsync](const QByteArray &folder) { return fsync.call(folder); });
        std::atomic<int> firstResult = -1;
        std::vector<int> results(3, -1);
        {
            Threads threads(fsync);
            threads.start([&] { firstResult = folders.sync("d"); });
            fsync.waitStarted(1);
            for (std::size_t i = 0; i < results.size(); ++i)
                threads.start([&, i] { results[i] = folders.sync("d"); });
            QTRY_COMPARE(folders.waiting("d"), 3);
        }
        QCOMPARE(firstResult.load(), 0);
        for (const int result : results)
            QCOMPARE(result, EIO);
        QCOMPARE(folders.sync("d"), 0);
        QCOMPARE(fsync.started(), 3);
    }

    void otherFoldersDoNotWait()
    {
        HeldFsync fsync;
        DirectorySync folders([&fsync](const QByteArray &folder) { return fsync.call(folder); });
        std::atomic<int> firstResult = -1;
        std::atomic<int> otherResult = -1;
        {
            Threads threads(fsync);
            threads.start([&] { firstResult = folders.sync("d"); });
            fsync.waitStarted(1);
            threads.start([&] { otherResult = folders.sync("e"); });
            QTRY_COMPARE(fsync.started(), 2); // while d's fsync is still held
        }
        QCOMPARE(firstResult.load(), 0);
        QCOMPARE(otherResult.load(), 0);
    }

    void realFoldersAreSyncedAndErrorsComeBack()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        DirectorySync folders(FileOps::syncDirectory);
        QCOMPARE(folders.sync(QFile::encodeName(dir.path())), 0);
        QCOMPARE(folders.sync(QFile::encodeName(dir.path() + QStringLiteral("/missing"))), ENOENT);
    }
};

QTEST_GUILESS_MAIN(TestDirectorySync)
#include "tst_directorysync.moc"
