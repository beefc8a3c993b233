#pragma once

#include <QNetworkInformation>
#include <QObject>

namespace multilane {

// The operating system's word on whether the network is there (NetworkManager, glib), used only
// as a hint: when it says the network came back, endpoints that are out are checked at once
// instead of at the end of their backoff (up to 30 s); when it says the way to the network
// changed, the link is measured again. Where no backend loads (servers, CI,
// containers) nothing is ever signalled and the engine's own probing does all the work.
class ReachabilityHint : public QObject {
    Q_OBJECT
public:
    // `information` may be null (no backend): the hint then stays silent.
    explicit ReachabilityHint(QNetworkInformation *information, QObject *parent = nullptr);

    // Loads the system's reachability backend once per process; null when there is none.
    static QNetworkInformation *systemBackend();

    // The system says there is no network (disconnected, or only the local host): nothing any
    // endpoint does can be the reason. False when it cannot tell.
    bool saysNetworkAbsent() const { return isAbsent(m_last); }

    // Fed by the backend; public so tests can drive it without one.
    void onReachabilityChanged(QNetworkInformation::Reachability reachability);
    void onTransportMediumChanged(QNetworkInformation::TransportMedium medium);

Q_SIGNALS:
    // The network went from absent (disconnected, local only) to present (site, internet).
    void networkReturned();
    // The system now says the network is gone (see saysNetworkAbsent()).
    void networkLost();
    // The way to the network changed (Wi-Fi to Ethernet, say): the link's figures are stale.
    void networkChanged();

private:
    static bool isPresent(QNetworkInformation::Reachability reachability);
    static bool isAbsent(QNetworkInformation::Reachability reachability);

    QNetworkInformation::Reachability m_last = QNetworkInformation::Reachability::Unknown;
    QNetworkInformation::TransportMedium m_medium = QNetworkInformation::TransportMedium::Unknown;
};

} // namespace multilane
