#include "LinksimProcess.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QRegularExpression>

LinksimProcess::~LinksimProcess()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(10000);
    }
}

bool LinksimProcess::start(const QList<quint16> &targetPorts, const QStringList &shaping,
                           const QList<quint16> &listenPorts)
{
    QStringList arguments = shaping;
    for (qsizetype i = 0; i < targetPorts.size(); ++i)
        arguments << QStringLiteral("--listen")
                  << QStringLiteral("127.0.0.1:%1=127.0.0.1:%2")
                         .arg(i < listenPorts.size() ? listenPorts.at(i) : 0)
                         .arg(targetPorts.at(i));
    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    m_process.start(QStringLiteral(LINKSIM_BIN), arguments);
    if (!m_process.waitForStarted(10000)) {
        m_errorText = m_process.errorString();
        return false;
    }
    static const QRegularExpression announced(QStringLiteral("^linksim 127\\.0\\.0\\.1:(\\d+) -> \\S+$"));
    const QDeadlineTimer deadline(10000);
    while (m_ports.size() < targetPorts.size() && !deadline.hasExpired()) {
        if (!m_process.canReadLine() && !m_process.waitForReadyRead(int(deadline.remainingTime())))
            break;
        while (m_process.canReadLine()) {
            const QRegularExpressionMatch match =
                announced.match(QString::fromUtf8(m_process.readLine()).trimmed());
            if (match.hasMatch())
                m_ports.append(quint16(match.captured(1).toUInt()));
        }
    }
    if (m_ports.size() < targetPorts.size()) {
        m_errorText = QString::fromUtf8(m_process.readAllStandardError());
        return false;
    }
    return true;
}

qint64 LinksimProcess::peakRssKiB() const
{
    QFile status(QStringLiteral("/proc/%1/status").arg(m_process.processId()));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}
