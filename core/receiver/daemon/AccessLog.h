#pragma once

#include <QMutex>
#include <QString>
#include <atomic>
#include <optional>

namespace multilane {

// Where the one-line-per-request access log goes: a file opened for appending, or stderr ("-").
// Server threads write concurrently: each line is one write() under a mutex, so lines never
// interleave, and open() again (on SIGHUP, after logrotate moved the file) swaps the file safely.
// A pipe or terminal nobody reads (a stopped `| less`, a parent that does not drain stderr) must
// not stall uploads: when the pipe is full the line is dropped and counted instead of waited for.
class AccessLog {
public:
    explicit AccessLog(QString target); // a file path, or "-" for stderr
    ~AccessLog();
    AccessLog(const AccessLog &) = delete;
    AccessLog &operator=(const AccessLog &) = delete;

    // Opens (or reopens) the target; the message says what to do when it cannot.
    std::optional<QString> open();
    void write(const QString &line);
    QString target() const { return m_target; }
    // Lines dropped because the pipe or terminal was full (see the class comment).
    quint64 droppedLines() const { return m_dropped; }

private:
    const QString m_target;
    QMutex m_mutex;
    int m_fd = -1;
    std::atomic<quint64> m_dropped = 0;
};

} // namespace multilane
