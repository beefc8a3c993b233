#pragma once

#include <QString>
#include <QtGlobal>

// How hard one chaos run is: the data, the link, the kills. `ci` is bounded for the suite (well
// under a minute); `bench` is issue #14's run (one 400 MiB file and 150 small ones over a
// 50 MB/s, 10 ms link, twelve kills). Environment variables override single values, so
// bench/chaos.sh can draw links from a seed.
struct ChaosProfile {
    QString name;
    quint32 seed = 0;
    qint64 bigFileBytes = 0;
    int mediumFiles = 0; // 2-16 MiB each: more creates, last chunks and completes to kill in
    int smallFiles = 0;
    qint64 smallFileMaxBytes = 0;
    double linkBytesPerSecond = 0; // all connections together; 0: no link emulated
    int rttMs = 0;
    int rounds = 0;
    int roundMinMs = 0;  // a kill "at a random moment" comes this long into the round…
    int roundMaxMs = 0;  // …at most this long
    int outageMs = 1000; // the receiver is restarted this long after its kill
    int fallbackMs = 0;  // a round whose moment does not come kills at this point anyway
    int timeoutMs = 0;   // the whole run

    // MULTILANE_CHAOS=ci|bench, then MULTILANE_CHAOS_SEED, _RATE (bytes/s), _RTT_MS, _ROUNDS,
    // _BIG (bytes), _SMALL (count).
    static ChaosProfile fromEnvironment();
    QString describe() const;
};
