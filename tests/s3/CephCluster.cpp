#include "CephCluster.h"

#include <QFile>
#include <csignal>
#include <sys/types.h>

namespace multilane {

namespace {

QMap<QString, QString> readEnvFile(const QString &path)
{
    QMap<QString, QString> values;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return values;
    for (const QByteArray &line : file.readAll().split('\n')) {
        const qsizetype equals = line.indexOf('=');
        if (equals > 0)
            values.insert(QString::fromUtf8(line.left(equals)), QString::fromUtf8(line.mid(equals + 1)));
    }
    return values;
}

} // namespace

CephCluster::CephCluster(QString dir)
    : m_dir(std::move(dir))
{
    m_restart.setProcessChannelMode(QProcess::MergedChannels);
}

CephCluster::~CephCluster()
{
    if (m_restart.state() != QProcess::NotRunning)
        m_restart.waitForFinished(60000);
    QProcess stop;
    stop.start(QStringLiteral(CEPH_CLUSTER_SCRIPT), {QStringLiteral("stop"), m_dir});
    stop.waitForFinished(60000);
}

bool CephCluster::start(int gateways)
{
    QProcess start;
    start.setProcessChannelMode(QProcess::MergedChannels);
    start.start(QStringLiteral(CEPH_CLUSTER_SCRIPT),
                {QStringLiteral("start"), m_dir, QString::number(gateways)});
    const bool ran = start.waitForStarted() && start.waitForFinished(480000);
    const QString output = QString::fromUtf8(start.readAll()).trimmed();
    qInfo("%s", qPrintable(output));
    if (!ran || start.exitStatus() != QProcess::NormalExit || start.exitCode() != 0) {
        m_error = QStringLiteral(
                      "could not start a Ceph cluster with tests/s3/ceph-cluster.sh (it needs the Debian "
                      "packages ceph-mon ceph-osd radosgw ceph-common awscli, installed as root): ") +
                  output;
        return false;
    }
    m_env = readEnvFile(m_dir + QStringLiteral("/env"));
    for (const QString &endpoint : m_env.value(QStringLiteral("CEPH_S3_ENDPOINTS")).split(QLatin1Char(',')))
        m_gateways.append(QUrl(endpoint));
    m_credentials = {m_env.value(QStringLiteral("CEPH_S3_ACCESS_KEY")),
                     m_env.value(QStringLiteral("CEPH_S3_SECRET_KEY")),
                     {},
                     QStringLiteral("ceph-cluster.sh")};
    if (m_gateways.size() != gateways)
        m_error = QStringLiteral("ceph-cluster.sh started %1 gateways, not %2")
                      .arg(m_gateways.size())
                      .arg(gateways);
    return m_gateways.size() == gateways;
}

bool CephCluster::killGateway(int index)
{
    QFile pidFile(m_dir + QStringLiteral("/run/client.rgw.gw%1.pid").arg(index + 1));
    if (!pidFile.open(QIODevice::ReadOnly))
        return false;
    const pid_t pid = pid_t(pidFile.readAll().trimmed().toInt());
    // Only our own gateway: a pid whose command line names this cluster's configuration.
    QFile commandLine(QStringLiteral("/proc/%1/cmdline").arg(pid));
    if (pid <= 0 || !commandLine.open(QIODevice::ReadOnly) ||
        !commandLine.readAll().contains((m_dir + QStringLiteral("/ceph.conf")).toUtf8()))
        return false;
    return ::kill(pid, SIGKILL) == 0;
}

QProcess *CephCluster::restartGateway(int index)
{
    m_restart.start(QStringLiteral(CEPH_CLUSTER_SCRIPT),
                    {QStringLiteral("restart-gateway"), m_dir, QString::number(index + 1)});
    return &m_restart;
}

} // namespace multilane
