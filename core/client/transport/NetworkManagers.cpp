#include "NetworkManagers.h"

#include "TlsTrust.h"

#include <QNetworkAccessManager>

namespace multilane {

NetworkManagers::NetworkManagers(int count)
{
    for (int i = 0; i < count; ++i) {
        m_managers.push_back(std::make_unique<QNetworkAccessManager>());
        TlsTrust::watch(*m_managers.back()); // pinned endpoints are accepted only by watched managers
    }
}

NetworkManagers::~NetworkManagers() = default;

QList<QNetworkAccessManager *> NetworkManagers::list() const
{
    QList<QNetworkAccessManager *> managers;
    for (const auto &manager : m_managers)
        managers.append(manager.get());
    return managers;
}

} // namespace multilane
