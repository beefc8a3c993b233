#pragma once

#include <QList>
#include <QProcess>
#include <QStringList>

// Runs the real linksim binary for tests and reads the ports it listens on from its output.
class LinksimProcess {
public:
    ~LinksimProcess();

    // Starts linksim with one "--listen 127.0.0.1:LISTEN=127.0.0.1:PORT" per target port plus
    // `shaping`, and waits (on output, not a sleep) until every listener is announced. LISTEN is
    // 0 (any free port) unless `listenPorts` gives them (a new link on the same addresses).
    bool start(const QList<quint16> &targetPorts, const QStringList &shaping,
               const QList<quint16> &listenPorts = {});
    const QList<quint16> &ports() const { return m_ports; }
    qint64 pid() const { return m_process.processId(); }
    // Peak resident memory of the running process in KiB (VmHWM), or -1.
    qint64 peakRssKiB() const;
    QProcess &process() { return m_process; }
    QString errorText() const { return m_errorText; }

private:
    QProcess m_process;
    QList<quint16> m_ports;
    QString m_errorText;
};
