#include "KillPlan.h"

#include <QRandomGenerator>
#include <algorithm>

// A create is seen only as a client starts (its queries of the uploads it knows, the creates of
// its first files), so a round killing at a create follows a round that killed the client.
static bool followsAClientKill(const QList<KillPlan::Round> &rounds, qsizetype i)
{
    return i > 0 && rounds.at(i - 1).victim == KillPlan::Victim::Client;
}

KillPlan::KillPlan(int rounds, quint32 seed, int minDelayMs, int maxDelayMs)
{
    QRandomGenerator random(seed ^ 0x6b696c6cu);
    const QList<Moment> later{Moment::Create, Moment::LastChunk, Moment::Complete, Moment::Bytes,
                              Moment::Time};
    // The first round of each victim is at the endpoint check: the client's at its very start,
    // the receiver's as the resumed client checks its endpoints. The rest are shuffled until
    // every create round follows a client kill (a few tries; then the creates become times).
    QList<Round> rest;
    for (int i = 2; i < rounds; ++i)
        rest.append(
            {i % 2 == 0 ? Victim::Client : Victim::Receiver, later.at(((i - 2) / 2) % later.size()), 0, 0});
    QList<Round> order;
    for (int attempt = 0; attempt < 200; ++attempt) {
        std::shuffle(rest.begin(), rest.end(), random);
        order = QList<Round>{{Victim::Client, Moment::EndpointCheck, 0, 0},
                             {Victim::Receiver, Moment::EndpointCheck, 0, 0}} +
                rest;
        bool fits = true;
        for (qsizetype i = 0; i < order.size(); ++i)
            fits = fits && (order.at(i).moment != Moment::Create || followsAClientKill(order, i));
        if (fits)
            break;
    }
    for (qsizetype i = 0; i < std::min<qsizetype>(rounds, order.size()); ++i) {
        Round round = order.at(i);
        if (round.moment == Moment::Create && !followsAClientKill(order, i))
            round.moment = Moment::Time;
        round.delayMs = minDelayMs + int(random.bounded(std::max(1, maxDelayMs - minDelayMs)));
        round.dataShare = 0.02 + random.generateDouble() * 0.08;
        m_rounds.append(round);
    }
}

QString KillPlan::nameOf(Victim victim)
{
    return victim == Victim::Client ? QStringLiteral("client") : QStringLiteral("receiver");
}

QString KillPlan::nameOf(Moment moment)
{
    switch (moment) {
    case Moment::EndpointCheck:
        return QStringLiteral("endpoint check");
    case Moment::Create:
        return QStringLiteral("create");
    case Moment::LastChunk:
        return QStringLiteral("last chunk");
    case Moment::Complete:
        return QStringLiteral("complete");
    case Moment::Bytes:
        return QStringLiteral("after bytes");
    case Moment::Time:
        return QStringLiteral("after time");
    }
    return {};
}
