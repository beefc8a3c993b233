#pragma once

#include "BandwidthProbe.h"
#include "Endpoint.h"
#include "LinkEstimate.h"

#include <QObject>
#include <functional>
#include <memory>

class QNetworkAccessManager;

namespace multilane {

class TransferScheduler;

// Measures the link again when the network changes under a running upload, and hands the new
// figures to the scheduler (chunk size of the files not started yet, the tuner's search). The
// triggers: the scheduler coming back online after every endpoint was out (another network, as
// like as not), and the system's word that the network came back or changed medium
// (ReachabilityHint, wired by the owner to remeasure()). One measurement at a time; a trigger
// during one is folded into it.
class LinkRemeasurer : public QObject {
    Q_OBJECT
public:
    LinkRemeasurer(TransferScheduler &scheduler, const QList<QNetworkAccessManager *> &probeManagers,
                   const QList<Endpoint> &endpoints, const BandwidthProbe::Options &probeOptions,
                   QObject *parent = nullptr);
    ~LinkRemeasurer() override;

    void remeasure();
    // Asked when the scheduler comes back online: false skips the measurement (the owner can tell
    // the network is the one it was). Unset: always measure.
    void setOnlineGate(std::function<bool()> networkMayHaveChanged)
    {
        m_gate = std::move(networkMayHaveChanged);
    }
    bool isMeasuring() const { return m_probe != nullptr; }

Q_SIGNALS:
    void remeasured(const multilane::LinkEstimate &estimate);
    void failed(const QString &why);

private:
    void finish();

    TransferScheduler &m_scheduler;
    QList<QNetworkAccessManager *> m_probeManagers;
    QList<Endpoint> m_endpoints;
    BandwidthProbe::Options m_probeOptions;
    std::unique_ptr<BandwidthProbe> m_probe;
    std::function<bool()> m_gate;
};

} // namespace multilane
