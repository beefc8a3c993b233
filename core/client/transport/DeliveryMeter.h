#pragma once

#include <QHash>
#include <QList>
#include <QtGlobal>

namespace multilane {

// What the peers of this process's TCP connections have acknowledged, read from the kernel
// (TCP_INFO's bytes_acked) over every connection. A rate from it counts the bytes that left the
// machine, not those handed to socket buffers: those run megabytes ahead of a slow link at the
// start of an upload, which made a tuner that judged by them see speed that was not there.
// Linux; elsewhere isAvailable() is false and callers fall back to what they handed on.
class DeliveryMeter {
public:
    struct Sample {
        // Since the meter was made, each connection counted from its first sample on; a closed
        // connection keeps what it had.
        qint64 ackedBytes = 0;
        int connections = 0;      // TCP connections open now
        int busyConnections = 0;  // of those, the ones that acknowledged bytes since the last sample
        double smoothedRttMs = 0; // mean of the busy connections' smoothed round trips
        double minRttMs = 0;      // the smallest round trip any connection has seen
        // Handed to these connections and not acknowledged yet (the kernel's send queues, now).
        qint64 queuedBytes = 0;
    };

    bool isAvailable() const;
    // Over the connections to these peer ports (another upload in the same process, to other
    // endpoints, is not counted); all of them when the list is empty.
    Sample sample(const QList<quint16> &peerPorts = {});

private:
    QHash<quint64, quint64> m_ackedBySocket; // inode -> bytes acknowledged at the last sample
    qint64 m_total = 0;
    double m_minRttMs = 0;
};

} // namespace multilane
