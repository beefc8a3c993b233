#include "ReceiverProcess.h"

#include <QDeadlineTimer>
#include <QRegularExpression>

ReceiverProcess::ReceiverProcess(const QString &storageDir)
    : m_storageDir(storageDir)
{}

ReceiverProcess::~ReceiverProcess()
{
    kill();
}

bool ReceiverProcess::start(int ports, const QStringList &extraArguments)
{
    QStringList listen;
    for (int i = 0; i < ports; ++i)
        listen.append(i == 0 ? QStringLiteral("127.0.0.1:0") : QStringLiteral("0"));
    m_extraArguments = extraArguments;
    return launch(listen.join(QLatin1Char(',')), ports);
}

bool ReceiverProcess::restart()
{
    QStringList listen;
    for (const QUrl &url : std::as_const(m_urls))
        listen.append(QStringLiteral("127.0.0.1:%1").arg(url.port()));
    return launch(listen.join(QLatin1Char(',')), int(listen.size()));
}

bool ReceiverProcess::launch(const QString &listen, int ports)
{
    QStringList arguments{QStringLiteral("--storage"), m_storageDir, QStringLiteral("--listen"), listen};
    arguments += m_extraArguments;
    // The receiver logs to stderr; keep the pipe drained (a full pipe would block it) and keep
    // the tail for errorText().
    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    QObject::disconnect(&m_process, &QProcess::readyReadStandardError, nullptr, nullptr);
    QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process, [this] {
        const QByteArray logged = m_process.readAllStandardError();
        m_stderrAll.append(logged);
        m_stderrTail.append(logged);
        m_stderrTail = m_stderrTail.right(16384);
    });
    if (m_launcher.isEmpty())
        m_process.start(QStringLiteral(MULTILANE_RECEIVER_BIN), arguments);
    else
        m_process.start(m_launcher.constFirst(),
                        m_launcher.mid(1) + QStringList{QStringLiteral(MULTILANE_RECEIVER_BIN)} + arguments);
    if (!m_process.waitForStarted(10000)) {
        m_errorText = m_process.errorString();
        return false;
    }
    static const QRegularExpression listening(QStringLiteral("^listening on (https?://\\S+)$"));
    QByteArray pending;
    m_urls.clear();
    const QDeadlineTimer deadline(15000);
    while (m_urls.size() < ports && !deadline.hasExpired()) {
        if (!m_process.canReadLine() && !m_process.waitForReadyRead(int(deadline.remainingTime())))
            break;
        while (m_process.canReadLine()) {
            const QString line = QString::fromUtf8(m_process.readLine()).trimmed();
            const QRegularExpressionMatch match = listening.match(line);
            if (match.hasMatch())
                m_urls.append(QUrl(match.captured(1)));
        }
    }
    if (m_urls.size() < ports) {
        m_errorText = QString::fromUtf8(m_stderrTail + m_process.readAllStandardError());
        kill();
        return false;
    }
    return true;
}

QByteArray ReceiverProcess::takeStderr()
{
    m_stderrAll.append(m_process.readAllStandardError());
    QByteArray logged;
    logged.swap(m_stderrAll);
    return logged;
}

void ReceiverProcess::kill()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(10000);
    }
}

QStringList ReceiverProcess::endpointArguments() const
{
    QStringList arguments;
    for (const QUrl &url : m_urls)
        arguments << QStringLiteral("--endpoint") << url.toString();
    return arguments;
}
