#pragma once

#include "S3Credentials.h"

#include <QList>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QUrl>

namespace multilane {

// A throwaway Ceph cluster started by ceph-cluster.sh for one test suite: its gateways, the S3
// user's keys, and a gateway killed and started again on request. Stopped when destroyed.
class CephCluster {
public:
    explicit CephCluster(QString dir);
    ~CephCluster();
    CephCluster(const CephCluster &) = delete;
    CephCluster &operator=(const CephCluster &) = delete;

    // Blocks until every gateway answers (installing the Debian packages first when missing).
    bool start(int gateways);
    const QString &errorText() const { return m_error; }

    const QList<QUrl> &gateways() const { return m_gateways; }
    const S3Credentials &credentials() const { return m_credentials; }
    QString region() const { return m_env.value(QStringLiteral("CEPH_S3_REGION")); }
    // Gateway `index`'s log (from 0), access lines included (RgwAccessLog reads them).
    QString gatewayLog(int index) const
    {
        return m_dir + QStringLiteral("/log/client.rgw.gw%1.log").arg(index + 1);
    }
    // Kills gateway `index` (from 0) at once with SIGKILL; false when it was not running.
    bool killGateway(int index);
    // Kills gateway `index` (if it still runs) and starts it again on its port; the process runs
    // meanwhile (its finished() says the gateway answers again).
    QProcess *restartGateway(int index);

private:
    QString m_dir;
    QString m_error;
    QMap<QString, QString> m_env;
    QList<QUrl> m_gateways;
    S3Credentials m_credentials;
    QProcess m_restart;
};

} // namespace multilane
