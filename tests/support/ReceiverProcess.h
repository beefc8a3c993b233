#pragma once

#include <QList>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QUrl>

// Runs the real multilane-receiver binary on loopback ports chosen by the kernel, for tests.
class ReceiverProcess {
public:
    explicit ReceiverProcess(const QString &storageDir);
    ~ReceiverProcess();

    // Starts on `ports` free loopback ports and waits (on output, not a sleep) until every one
    // is listening. False, with the receiver's output in errorText(), if it did not come up.
    bool start(int ports = 3, const QStringList &extraArguments = {});
    // Starts again on the ports it had (after kill()), e.g. to test a receiver that comes back.
    bool restart();
    void kill();
    // Starts the receiver through this command line (e.g. prlimit ... setpriv ...), the
    // receiver's own command line after it; empty: directly.
    void setLauncher(const QStringList &launcher) { m_launcher = launcher; }

    const QList<QUrl> &urls() const { return m_urls; }
    QStringList endpointArguments() const; // --endpoint URL for each port
    QString errorText() const { return m_errorText; }
    // The last 16 KiB the receiver logged (complete after the process has finished).
    QByteArray stderrTail() const { return m_stderrTail; }
    // Everything the receiver logged since the last call, across restarts (for tests that read
    // the whole log, e.g. for Qt's warnings).
    QByteArray takeStderr();
    QProcess &process() { return m_process; }

private:
    bool launch(const QString &listen, int ports);

    QString m_storageDir;
    QStringList m_extraArguments;
    QStringList m_launcher;
    QProcess m_process;
    QList<QUrl> m_urls;
    QString m_errorText;
    QByteArray m_stderrTail;
    QByteArray m_stderrAll;
};
