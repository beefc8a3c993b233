#include "LinkRemeasurer.h"

#include "TransferScheduler.h"

namespace multilane {

LinkRemeasurer::LinkRemeasurer(TransferScheduler &scheduler,
                               const QList<QNetworkAccessManager *> &probeManagers,
                               const QList<Endpoint> &endpoints, const BandwidthProbe::Options &probeOptions,
                               QObject *parent)
    : QObject(parent)
    , m_scheduler(scheduler)
    , m_probeManagers(probeManagers)
    , m_endpoints(endpoints)
    , m_probeOptions(probeOptions)
{
    connect(&scheduler, &TransferScheduler::onlineChanged, this, [this](bool online) {
        if (online && (!m_gate || m_gate()))
            remeasure();
    });
}

LinkRemeasurer::~LinkRemeasurer()
{
    if (m_probe)
        m_scheduler.holdWhileMeasuring(false);
}

void LinkRemeasurer::remeasure()
{
    if (m_probe || m_scheduler.isFinished())
        return;
    m_probe = std::make_unique<BandwidthProbe>(m_probeManagers, m_endpoints, m_probeOptions);
    // Back online, this upload would send at once and the probe measure what it leaves of the
    // link (and size chunks and restart the tuner from that): it waits the probe's second.
    m_scheduler.holdWhileMeasuring(true);
    connect(m_probe.get(), &BandwidthProbe::finished, this, [this](const LinkEstimate &estimate) {
        m_scheduler.adaptTo(estimate); // before the hold ends: what goes next is cut for the new link
        finish();
        Q_EMIT remeasured(estimate);
    });
    connect(m_probe.get(), &BandwidthProbe::failed, this, [this](const QString &why) {
        finish();
        Q_EMIT failed(why);
    });
    m_probe->start();
}

void LinkRemeasurer::finish()
{
    // Called from the probe's own signal: it is deleted once that signal has returned.
    m_probe.release()->deleteLater();
    m_scheduler.holdWhileMeasuring(false);
}

} // namespace multilane
