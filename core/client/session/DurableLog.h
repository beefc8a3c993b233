#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

namespace multilane {

// An append-only file in a folder of its own, made durable the POSIX way: a lock file so one
// process at a time writes it, a rewrite that goes to a new file renamed over the old one (a crash
// leaves one or the other, never a mix), and whole records in each write() (a kill between writes
// leaves every record whole; a line cut short within one fails its CRC at load). Errors are values
// naming the path.
class DurableLog {
public:
    DurableLog(const QString &directory, const QString &logName, const QString &lockName);
    ~DurableLog(); // fdatasyncs, closes, releases the lock
    DurableLog(const DurableLog &) = delete;
    DurableLog &operator=(const DurableLog &) = delete;

    QString logPath() const;
    // Creates the folder (0700, with its parents) and takes the lock without waiting.
    std::optional<QString> lock();
    // Replaces the log with `contents` (0600) and keeps it open for appending.
    std::optional<QString> rewrite(const QByteArray &contents);
    bool isOpen() const { return m_fd >= 0; }
    // Appends one or more whole records. After a failed write the partial record is cut off and the log
    // closed; the first such error is kept for flush().
    void append(const QByteArray &line);
    // fdatasyncs; returns the first write error since rewrite(), if any.
    std::optional<QString> flush();
    void close();

private:
    QString m_directory;
    QString m_logName;
    QString m_lockName;
    int m_fd = -1;
    int m_lockFd = -1;
    qint64 m_size = 0; // bytes in the log, to cut a half-written record after a failed write
    std::optional<QString> m_writeError;
};

} // namespace multilane
