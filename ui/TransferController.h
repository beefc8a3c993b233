#pragma once

#include "TransferScheduler.h"
#include "UserSettings.h"

#include <QObject>
#include <QStringList>
#include <memory>
#include <vector>

namespace multilane {

class ResumeJournal;
class SettingsStore;
class UploadSession;

// What the window asks of the engine: turns dropped paths into uploads with the current
// settings, runs them in sessions, and sums their progress for the status bar and the tray.
class TransferController : public QObject {
    Q_OBJECT
public:
    // journal may be null (another process holds it): uploads then cannot be resumed after a crash.
    TransferController(SettingsStore &settings, ResumeJournal *journal, QObject *parent = nullptr);
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
    // Continues them, each batch with the endpoints it started with; returns problems.
    QStringList resumeUnfinished();
    // Drops them from the journal.
    void discardUnfinished();

    void pauseAll();
    void resumeAll();
    bool isPaused() const { return m_paused; }
    bool isBusy() const; // something is not finished yet
    bool isOnline() const;
    // The OS says the network came back: every session checks its lost endpoints now.
    void networkReturned();
    TransferProgress totals() const;
    // "host:port" and the connections open to it now, over every running session.
    QList<QPair<QString, int>> connectionsPerEndpoint() const;
    TransferOptions currentOptions() const;
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

private:
    UploadSession &sessionFor(const QList<Endpoint> &endpoints, const TransferOptions &options);
    void startFiles(UploadSession &session, const QList<SourceFile> &files, const QString &batchId,
                    bool held);

    SettingsStore &m_settings;
    ResumeJournal *m_journal;
    std::vector<std::unique_ptr<UploadSession>> m_sessions;
    bool m_paused = false;
};

} // namespace multilane
