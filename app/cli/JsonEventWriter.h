#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QObject>

class QFile;

namespace multilane {

class TransferScheduler;
struct LinkEstimate;
struct LinkMemory;
struct TransferProgress;

// --json: one event per line on stdout, flushed at once, for scripts to read as it happens.
// Events: fileStarted, progress (at most once a second), fileDone, state, link, error, summary.
class JsonEventWriter : public QObject {
    Q_OBJECT
public:
    JsonEventWriter(QFile &out, QObject *parent = nullptr);

    void attach(const TransferScheduler &scheduler);
    void writeError(const QString &message, const QString &path = {});
    // {"event":"state","state":"waitingForNetwork"|"online"}
    void writeState(const QString &state);
    // {"event":"link","bytesPerSecond":…,"rttMs":…,"chunkSize":…}: the link measured again
    void writeLink(const LinkEstimate &estimate);
    // {"event":"linkRemembered","connections":…,"bytesPerSecond":…,"ageSeconds":…}: the tuner
    // starts where a recent run on this network settled
    void writeRememberedLink(const LinkMemory &memory, qint64 ageSeconds);
    // notSent: {"path","reason"} of each entry found and not sent (a FIFO, a link to a folder…)
    void writeSummary(const TransferProgress &progress, const QJsonArray &endpoints,
                      const QJsonArray &notSent = {});

private:
    void write(const QJsonObject &event);
    // {"level": N, "reason": "…"}: how many connections, and why.
    static QJsonObject connectionsOf(const TransferProgress &progress);

    QFile &m_out;
    qint64 m_lastProgressMs = -1;
};

} // namespace multilane
