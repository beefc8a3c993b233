#pragma once

#include <QObject>

class QFile;

namespace multilane {

class TransferScheduler;
struct TransferProgress;

// Progress for people on stderr: a redrawn bar when stderr is a terminal, a plain line every
// few seconds when it is a log file or a pipe. Failures are printed as they happen.
class ConsoleReporter : public QObject {
    Q_OBJECT
public:
    ConsoleReporter(QFile &err, bool terminal, bool quiet, QObject *parent = nullptr);

    void attach(const TransferScheduler &scheduler);
    void printLine(const QString &line);
    void printSummary(const TransferProgress &progress);

    static QString formatDuration(qint64 seconds);

private:
    void showProgress(const TransferProgress &progress);
    void clearBar();

    QFile &m_err;
    bool m_terminal;
    bool m_quiet;
    bool m_barShown = false;
    qint64 m_lastDrawMs;
};

} // namespace multilane
