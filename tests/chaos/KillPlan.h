#pragma once

#include <QList>
#include <QString>
#include <QtGlobal>

// Which process dies in each round of a chaos run, and when: as often the client (then
// `multilane resume`) as the receiver (restarted a little later while the client goes on), each
// at the moments that matter — its endpoint check at start, a create, a file's last chunk, a
// complete — and at random ones (after some bytes, after some time), in an order drawn from a
// seed. The endpoint checks come first (the client's at its start, the receiver's during the
// resumed client's check).
class KillPlan {
public:
    enum class Victim { Client, Receiver };
    enum class Moment { EndpointCheck, Create, LastChunk, Complete, Bytes, Time };
    struct Round {
        Victim victim = Victim::Client;
        Moment moment = Moment::Time;
        int delayMs = 0;      // Time: how long into the round
        double dataShare = 0; // Bytes: how much of the data set, from the round's start
    };

    KillPlan(int rounds, quint32 seed, int minDelayMs, int maxDelayMs);
    const QList<Round> &rounds() const { return m_rounds; }

    static QString nameOf(Victim victim);
    static QString nameOf(Moment moment);

private:
    QList<Round> m_rounds;
};
