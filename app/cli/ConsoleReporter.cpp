#include "ConsoleReporter.h"

#include "ByteSize.h"
#include "TransferScheduler.h"

#include <QFile>

namespace multilane {

ConsoleReporter::ConsoleReporter(QFile &err, bool terminal, bool quiet, QObject *parent)
    : QObject(parent)
    , m_err(err)
    , m_terminal(terminal)
    , m_quiet(quiet)
    , m_lastDrawMs(terminal ? -1 : 0) // a log's first line after one interval, not a 0% line
{}

void ConsoleReporter::attach(const TransferScheduler &scheduler)
{
    connect(&scheduler, &TransferScheduler::fileFinished, this, [this, &scheduler](int id) {
        const TransferJob &job = scheduler.job(id);
        if (job.state() == TransferState::Failed)
            printLine(QStringLiteral("failed: %1: %2").arg(job.source().localPath(), job.error()));
    });
    connect(&scheduler, &TransferScheduler::warning, this,
            [this](int, const QString &message) { printLine(QStringLiteral("warning: %1").arg(message)); });
    connect(&scheduler, &TransferScheduler::progressChanged, this, &ConsoleReporter::showProgress);
}

QString ConsoleReporter::formatDuration(qint64 seconds)
{
    if (seconds >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(seconds / 3600)
            .arg((seconds / 60) % 60, 2, 10, QLatin1Char('0'))
            .arg(seconds % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
}

void ConsoleReporter::showProgress(const TransferProgress &p)
{
    if (m_quiet)
        return;
    // A terminal gets 5 redraws a second; a log gets a line every 2 seconds.
    const qint64 interval = m_terminal ? 200 : 2000;
    if (m_lastDrawMs >= 0 && p.elapsedMs - m_lastDrawMs < interval)
        return;
    m_lastDrawMs = p.elapsedMs;

    const double fraction = p.bytesTotal > 0 ? double(p.bytesDone) / double(p.bytesTotal) : 1.0;
    const qint64 remaining = p.bytesTotal - p.bytesDone;
    const QString eta = p.bytesPerSecond > 1 ? formatDuration(qint64(double(remaining) / p.bytesPerSecond))
                                             : QStringLiteral("--:--");
    const QString numbers = QStringLiteral("%1% %2/%3 %4 ETA %5 files %6/%7")
                                .arg(int(fraction * 100), 3)
                                .arg(ByteSize::format(p.bytesDone), ByteSize::format(p.bytesTotal),
                                     ByteSize::formatRate(p.bytesPerSecond), eta)
                                .arg(p.filesDone + p.filesSkipped + p.filesFailed)
                                .arg(p.filesTotal);
    if (!m_terminal) {
        m_err.write(numbers.toUtf8() + '\n');
        m_err.flush();
        return;
    }
    constexpr int width = 24;
    const int filled = int(fraction * width);
    const QString bar = QString(filled, QLatin1Char('#')) + QString(width - filled, QLatin1Char('-'));
    m_err.write(QStringLiteral("\r[%1] %2\x1b[K").arg(bar, numbers).toUtf8());
    m_err.flush();
    m_barShown = true;
}

void ConsoleReporter::clearBar()
{
    if (m_barShown) {
        m_err.write("\r\x1b[K");
        m_barShown = false;
    }
}

void ConsoleReporter::printLine(const QString &line)
{
    clearBar();
    m_err.write(line.toUtf8() + '\n');
    m_err.flush();
    if (m_terminal)
        m_lastDrawMs = -1; // redraw the bar right away
}

void ConsoleReporter::printSummary(const TransferProgress &p)
{
    const double seconds = std::max(0.001, double(p.elapsedMs) / 1000.0);
    QString line = QStringLiteral("%1 of %2 files sent (%3) in %4 s, %5")
                       .arg(p.filesDone)
                       .arg(p.filesTotal)
                       .arg(ByteSize::format(p.bytesSent))
                       .arg(seconds, 0, 'f', 1)
                       .arg(ByteSize::formatRate(double(p.bytesSent) / seconds));
    if (p.filesSkipped > 0)
        line += QStringLiteral(", %1 skipped (already there)").arg(p.filesSkipped);
    if (p.filesFailed > 0)
        line += QStringLiteral(", %1 FAILED").arg(p.filesFailed);
    printLine(line);
}

} // namespace multilane
