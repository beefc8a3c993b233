#pragma once

#include "Endpoint.h"

#include <QList>
#include <QObject>
#include <optional>

class QNetworkAccessManager;

namespace multilane {

// Asks every endpoint's /v1/health at once, then whether it takes our token, and reports, per
// endpoint, nothing (healthy) or what is wrong in words a user can act on.
class HealthCheck : public QObject {
    Q_OBJECT
public:
    HealthCheck(QNetworkAccessManager &manager, QObject *parent = nullptr);

    void check(const QList<Endpoint> &endpoints, int timeoutMs = 10000);

Q_SIGNALS:
    void finished(const QList<std::optional<QString>> &problems);

private:
    void checkToken(qsizetype index, const Endpoint &endpoint, int timeoutMs);
    void settle(); // one endpoint's verdict is in

    QNetworkAccessManager &m_manager;
    QList<std::optional<QString>> m_problems;
    int m_waiting = 0;
};

} // namespace multilane
