#pragma once

#include <QElapsedTimer>
#include <QMainWindow>
#include <QTimer>
#include <functional>

class QAction;
class QLabel;
class QTableView;

namespace multilane {

class DropZone;
class SettingsStore;
class SpeedGraph;
class StatusPanel;
class TokenStore;
class TransferController;
class TransferTableModel;
class TrayIcon;

// The desktop window: a drop zone, the transfer list with its actions, a status bar with
// speed, connections and the online badge, and a live speed graph. The engine is the same
// TransferScheduler the command line drives, through TransferController.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // journalProblem: why uploads cannot be resumed after a crash (empty when they can).
    MainWindow(SettingsStore &settings, TokenStore &tokens, TransferController &controller,
               const QString &journalProblem, QWidget *parent = nullptr);
    ~MainWindow() override;

    TransferTableModel &model() { return *m_model; }
    QTableView *table() const { return m_table; }
    TrayIcon *trayIcon() const { return m_tray; }
    // Adds files and folders as a drop would; returns the problems shown to the user.
    QStringList addPaths(const QStringList &paths);
    // Asks whether to resume what the journal holds from an earlier run.
    void offerUnfinished();
    void openSettings();
    void openEndpoints();
    void openS3Target();        // Tools → S3 target: send to a bucket instead of the receivers
    QString statusText() const; // the status bar's text, for the tray tooltip and tests
    StatusPanel &status() { return *m_status; }
    // Progress, speeds, the status bar and the graph at nowMs (the window's steady tick calls it
    // with its own clock; tests with theirs).
    void tick(qint64 nowMs);
    // How often tick() runs.
    static constexpr int TickMs = 500;

Q_SIGNALS:
    // A desktop notification (batch finished or failed, as the settings ask; still uploading in
    // the tray). The tray shows it where there is one; tests listen here.
    void notificationPosted(const QString &title, const QString &message, bool failed);

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    // nullptr in `actions`: a separator.
    void createToolbar(const QList<QAction *> &actions);
    void createTable(QWidget *parent);
    // Acts on the selected rows; with none selected says how, instead of doing nothing silently.
    void onSelection(const QString &what, const std::function<void(const QList<int> &)> &act);
    QList<int> selectedRows() const;
    void updateActions();
    void refreshStatus();
    void showProblems(const QStringList &problems);
    void addFilesDialog();
    void addFolderDialog();
    void showInFolder();
    void togglePauseAll();
    void quitForGood();

    SettingsStore &m_settings;
    TokenStore &m_tokens;
    TransferController &m_controller;
    TransferTableModel *m_model;
    DropZone *m_dropZone;
    QTableView *m_table;
    SpeedGraph *m_graph;
    TrayIcon *m_tray = nullptr;
    StatusPanel *m_status;
    QAction *m_addFiles;
    QAction *m_addFolder;
    QAction *m_pauseAll;
    QAction *m_pauseSelected;
    QAction *m_resumeSelected;
    QAction *m_cancelSelected;
    QAction *m_retrySelected;
    QAction *m_removeSelected;
    QAction *m_showInFolder;
    QAction *m_clearFinished;
    QTimer m_tickTimer;
    QElapsedTimer m_clock;
    bool m_quitting = false;
};

} // namespace multilane
