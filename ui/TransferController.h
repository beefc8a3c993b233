#pragma once

#include "DeliveryMeter.h"
#include "LinkEstimate.h"
#include "LiveFigures.h"
#include "TransferScheduler.h"
#include "UploadPlan.h"
#include "UserSettings.h"

#include <QObject>
#include <QStringList>
#include <memory>
#include <optional>
#include <vector>

namespace multilane {

class BandwidthProbe;
class NetworkManagers;
class ReachabilityHint;
class ResumeJournal;
class SettingsStore;
class UploadSession;

// What the window asks of the engine: turns dropped paths into upload plans from the current
// settings, runs them in sessions (each an UploadRun, the flow the command line runs too), and
// sums their progress for the status bar and the tray.
class TransferController : public QObject {
    Q_OBJECT
public:
    // journal may be null (another process holds it): uploads then cannot be resumed after a crash.
    // reachability may be null (no system network hints).
    TransferController(SettingsStore &settings, ResumeJournal *journal,
                       ReachabilityHint *reachability = nullptr, QObject *parent = nullptr);
    ~TransferController() override;

    struct AddResult {
        int files = 0;
        QStringList errors; // scan errors and "no endpoint" in words for the user
    };
    // Scans files and folders (folders keep their tree) and starts them, or queues them
    // paused when the "start on drop" setting is off.
    AddResult addPaths(const QStringList &paths);

    // Unfinished files from the journal (an earlier run or a crash).
    int unfinishedFiles() const;
    qint64 unfinishedBytes() const;
    // Their names as they will arrive (destination paths), in natural order.
    QStringList unfinishedNames() const;
    // Continues them, each batch with the endpoints it started with; returns problems.
    QStringList resumeUnfinished();
    // Drops them from the journal.
    void discardUnfinished();

    void pauseAll();
    void resumeAll();
    bool isPaused() const { return m_paused; }
    bool isBusy() const;   // something is not finished yet
    bool isOnline() const; // no running upload waits for its receivers
    // The system says there is no network at all (ReachabilityHint): "offline", not "waiting for
    // receivers".
    bool systemSaysOffline() const;
    // The endpoints of running uploads that are out now, each with why, one a line.
    QStringList downEndpoints() const;
    // What the kernel says the receivers of running uploads acknowledged and what waits in the
    // sockets' queues (-1 each where it cannot tell); one count for the whole window, however many
    // uploads share the connections' ports; with the uplink last measured.
    LiveFigures::Delivery delivery();
    // The smallest and biggest chunk of the files being sent in chunks now; {0, 0} when none.
    QPair<qint64, qint64> chunkSizesInUse() const;
    // Measures the link to the enabled endpoints in the background (about a second of probe
    // uploads), for the status bar and, with "auto" chunk size, for the uploads added afterwards
    // (which then need no probe of their own). Run at start, when the endpoints or the network
    // change. Uploads under way measure again by themselves when the network changes
    // (UploadRun); their figures land here too. Does nothing while a measurement runs or no
    // endpoint is set up. Not while an upload runs either, and an upload that starts ends the
    // measurement under way: the probe would measure what the upload leaves of the link. The link
    // is then measured once nothing is sent.
    void measureLink();
    bool isMeasuringLink() const { return m_probe != nullptr; }
    // A measurement waits for the uploads under way to end.
    bool measuresLinkWhenIdle() const { return m_measureWhenIdle; }
    // The last measurement of the current endpoints, if any.
    const std::optional<LinkEstimate> &link() const { return m_link; }
    TransferProgress totals() const;
    // "host:port" and the connections open to it now, over every running session.
    QList<QPair<QString, int>> connectionsPerEndpoint() const;
    TransferOptions currentOptions() const;
    // What files added now would be sent with.
    UploadPlan currentPlan() const;
    const std::vector<std::unique_ptr<UploadSession>> &sessions() const { return m_sessions; }

Q_SIGNALS:
    void jobsAdded(multilane::UploadSession *session, int firstJob, int count);
    void jobsChanged(multilane::UploadSession *session, const QList<int> &jobs);
    void progressChanged(); // at most ~10 times a second per session
    void onlineChanged(bool online);
    // Worth telling the user, not a failure (a resumed file changed in place and is resent).
    void warning(const QString &message);
    void pausedChanged(bool paused);
    // One added batch has finished; failed: at least one file did not make it.
    void batchFinished(const QString &summary, bool failed);
    // A link measurement started or ended (link() holds the result; failed: why not).
    void linkChanged(const QString &failed = {});

private:
    UploadSession &sessionFor(const UploadPlan &plan);
    // The S3 target in place of the endpoints, with the keyring's keys when it has them.
    static void toS3(UploadPlan &plan, const S3TargetSettings &s3);

    SettingsStore &m_settings;
    ResumeJournal *m_journal;
    ReachabilityHint *m_reachability;
    std::vector<std::unique_ptr<UploadSession>> m_sessions;
    bool m_paused = false;
    std::unique_ptr<NetworkManagers> m_probeManagers;
    std::unique_ptr<BandwidthProbe> m_probe;
    bool m_measureWhenIdle = false; // a measurement gave way to an upload
    std::optional<LinkEstimate> m_link;
    QList<QUrl> m_linkEndpoints; // what m_link measured
    DeliveryMeter m_meter;
};

} // namespace multilane
