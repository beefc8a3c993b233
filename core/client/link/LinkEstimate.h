#pragma once

#include <QList>
#include <QString>
#include <QtGlobal>

namespace multilane {

// What the probe learned about the link, and the chunk size chosen from it.
struct LinkEstimate {
    double bytesPerSecond = 0; // all probe connections together, in the direction measured (upload)
    double rttMs = 0;          // best round trip of a tiny request
    int connections = 0;       // probe connections used
    qint64 chunkSize = 0;
    QString reason; // why this chunk size, in words

    // "24.0 MB/s up, round trip 40 ms, 8.00 MiB chunks": one line for a status bar or a table cell.
    QString summary() const;
};

// The probe's arithmetic, apart from the network so tests can feed it a clock: bytes received
// over time, with the warm-up (TCP slow start, first-byte latency) left out.
class ThroughputSampler {
public:
    // Samples before warmUpMs after the first byte do not count.
    explicit ThroughputSampler(qint64 warmUpMs = 300);

    void addSample(qint64 nowMs, qint64 totalBytes);
    // Rate over the samples after warm-up; 0 until there are two of them.
    double bytesPerSecond() const;
    qint64 measuredMs() const;

private:
    qint64 m_warmUpMs;
    qint64 m_firstByteMs = -1;
    qint64 m_startMs = -1;
    qint64 m_startBytes = 0;
    qint64 m_lastMs = -1;
    qint64 m_lastBytes = 0;
};

// The chunk-size rule (docs/architecture.md, "Chunk size"): big enough that the round trip
// each chunk costs is a small fraction of its sending time, small enough that a chunk lost to a
// failure is cheap to resend and that files spread over every connection.
namespace ChunkSizer {
inline constexpr qint64 MinChunk = 256 * 1024;
inline constexpr qint64 MaxChunk = 64 * 1024 * 1024;
inline constexpr double TargetSecondsPerChunk = 2.0;
inline constexpr double MaxRttOverhead = 0.05;

LinkEstimate choose(double bytesPerSecond, double rttMs, int connections);
} // namespace ChunkSizer

} // namespace multilane
