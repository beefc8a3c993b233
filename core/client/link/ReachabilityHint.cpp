#include "ReachabilityHint.h"

namespace multilane {

ReachabilityHint::ReachabilityHint(QNetworkInformation *information, QObject *parent)
    : QObject(parent)
{
    if (!information)
        return;
    m_last = information->reachability();
    connect(information, &QNetworkInformation::reachabilityChanged, this,
            &ReachabilityHint::onReachabilityChanged);
    if (information->supports(QNetworkInformation::Feature::TransportMedium)) {
        m_medium = information->transportMedium();
        connect(information, &QNetworkInformation::transportMediumChanged, this,
                &ReachabilityHint::onTransportMediumChanged);
    }
}

QNetworkInformation *ReachabilityHint::systemBackend()
{
    if (!QNetworkInformation::instance())
        QNetworkInformation::loadBackendByFeatures(QNetworkInformation::Feature::Reachability);
    return QNetworkInformation::instance();
}

bool ReachabilityHint::isPresent(QNetworkInformation::Reachability reachability)
{
    return reachability == QNetworkInformation::Reachability::Site ||
           reachability == QNetworkInformation::Reachability::Online;
}

bool ReachabilityHint::isAbsent(QNetworkInformation::Reachability reachability)
{
    return reachability == QNetworkInformation::Reachability::Disconnected ||
           reachability == QNetworkInformation::Reachability::Local;
}

void ReachabilityHint::onReachabilityChanged(QNetworkInformation::Reachability reachability)
{
    // Unknown says nothing either way: only a real absence followed by presence is a return.
    const bool wasAbsent = isAbsent(m_last);
    if (reachability != QNetworkInformation::Reachability::Unknown)
        m_last = reachability;
    if (wasAbsent && isPresent(reachability))
        Q_EMIT networkReturned();
    else if (!wasAbsent && isAbsent(reachability))
        Q_EMIT networkLost();
}

void ReachabilityHint::onTransportMediumChanged(QNetworkInformation::TransportMedium medium)
{
    // Wi-Fi to Ethernet, Ethernet to a phone's hotspot: the same endpoints, another link. Unknown
    // (between two media, or a backend that cannot tell) is not a change of its own.
    const QNetworkInformation::TransportMedium before = m_medium;
    if (medium == QNetworkInformation::TransportMedium::Unknown)
        return;
    m_medium = medium;
    if (before != QNetworkInformation::TransportMedium::Unknown && before != medium)
        Q_EMIT networkChanged();
}

} // namespace multilane
