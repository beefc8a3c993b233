#include "LinkEstimate.h"

#include "ByteSize.h"

#include <algorithm>
#include <cmath>

namespace multilane {

QString LinkEstimate::summary() const
{
    return QStringLiteral("%1 up, round trip %2 ms, %3 chunks")
        .arg(ByteSize::formatRate(bytesPerSecond))
        .arg(rttMs, 0, 'f', 0)
        .arg(ByteSize::format(chunkSize));
}

ThroughputSampler::ThroughputSampler(qint64 warmUpMs)
    : m_warmUpMs(warmUpMs)
{}

void ThroughputSampler::addSample(qint64 nowMs, qint64 totalBytes)
{
    if (totalBytes <= 0)
        return;
    if (m_firstByteMs < 0)
        m_firstByteMs = nowMs;
    if (nowMs - m_firstByteMs < m_warmUpMs)
        return;
    if (m_startMs < 0) {
        m_startMs = nowMs;
        m_startBytes = totalBytes;
    }
    m_lastMs = nowMs;
    m_lastBytes = totalBytes;
}

double ThroughputSampler::bytesPerSecond() const
{
    const qint64 span = measuredMs();
    return span > 0 ? double(m_lastBytes - m_startBytes) * 1000.0 / double(span) : 0.0;
}

qint64 ThroughputSampler::measuredMs() const
{
    return m_startMs < 0 ? 0 : m_lastMs - m_startMs;
}

namespace ChunkSizer {

LinkEstimate choose(double bytesPerSecond, double rttMs, int connections)
{
    LinkEstimate estimate;
    estimate.bytesPerSecond = bytesPerSecond;
    estimate.rttMs = rttMs;
    estimate.connections = connections;
    const double perConnection = bytesPerSecond / std::max(1, connections);
    // A chunk should take about two seconds on one connection…
    const double byTime = perConnection * TargetSecondsPerChunk;
    // …and at least long enough that its round trip costs under 5 % of its time.
    const double byRtt = perConnection * (rttMs / 1000.0) / MaxRttOverhead;
    const double wanted = std::max(byTime, byRtt);
    // Round down to a power of two: chunk boundaries stay page- and block-aligned.
    qint64 chunk = MinChunk;
    while (chunk * 2 <= wanted && chunk * 2 <= MaxChunk)
        chunk *= 2;
    estimate.chunkSize = chunk;
    const QString perConnectionText = ByteSize::formatRate(perConnection);
    if (perConnection <= 0) {
        estimate.reason =
            QStringLiteral("no measurement: the smallest chunk, %1").arg(ByteSize::format(chunk));
    } else if (wanted >= double(MaxChunk)) {
        estimate.reason =
            QStringLiteral("%1 per connection would want chunks over %2; capped there so a failed "
                           "chunk stays cheap to resend")
                .arg(perConnectionText, ByteSize::format(MaxChunk));
    } else if (wanted < double(MinChunk)) {
        estimate.reason =
            QStringLiteral("%1 per connection is slow; the floor of %2 keeps request overhead low")
                .arg(perConnectionText, ByteSize::format(MinChunk));
    } else if (byRtt > byTime) {
        estimate.reason =
            QStringLiteral("%1 per connection and a %2 ms round trip: %3 keeps the round trip under "
                           "5% of each chunk's time")
                .arg(perConnectionText)
                .arg(rttMs, 0, 'f', 0)
                .arg(ByteSize::format(chunk));
    } else {
        estimate.reason = QStringLiteral("%1 per connection: %2 takes about %3 s to send")
                              .arg(perConnectionText, ByteSize::format(chunk))
                              .arg(double(chunk) / perConnection, 0, 'f', 1);
    }
    return estimate;
}

} // namespace ChunkSizer
} // namespace multilane
