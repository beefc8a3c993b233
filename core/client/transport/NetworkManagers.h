#pragma once

#include <QList>
#include <memory>
#include <vector>

class QNetworkAccessManager;

namespace multilane {

// Several QNetworkAccessManagers for measurements that need more connections to one host than
// Qt 6.4 opens from one manager (6 per host:port): the bandwidth probe and the speed test.
class NetworkManagers {
public:
    static constexpr int ForProbe = 12; // BandwidthProbe and SpeedTest use at most 12 streams

    explicit NetworkManagers(int count = ForProbe);
    ~NetworkManagers();
    NetworkManagers(const NetworkManagers &) = delete;
    NetworkManagers &operator=(const NetworkManagers &) = delete;

    QList<QNetworkAccessManager *> list() const;

private:
    std::vector<std::unique_ptr<QNetworkAccessManager>> m_managers;
};

} // namespace multilane
