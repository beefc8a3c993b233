#pragma once

#include <QObject>

class QSocketNotifier;

// Turns SIGINT and SIGTERM into a Qt signal on the event loop (the self-pipe trick), so Ctrl-C
// can pause the transfer and flush the journal instead of killing the process mid-write.
class SignalWatcher : public QObject {
    Q_OBJECT
public:
    explicit SignalWatcher(QObject *parent = nullptr);
    ~SignalWatcher() override;

Q_SIGNALS:
    void interrupted(int signalNumber);

private:
    static void handle(int signalNumber);
    static int s_fds[2];
    QSocketNotifier *m_notifier = nullptr;
};
