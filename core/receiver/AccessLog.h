#pragma once

#include <QMutex>
#include <QString>
#include <optional>

namespace multilane {

// Where the one-line-per-request access log goes: a file opened for appending, or stderr ("-").
// Server threads write concurrently: each line is one write() under a mutex, so lines never
// interleave, and reopen() (on SIGHUP, after logrotate moved the file) swaps the file safely.
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

private:
    const QString m_target;
    QMutex m_mutex;
    int m_fd = -1;
};

} // namespace multilane
