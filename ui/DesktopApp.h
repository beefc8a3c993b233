#pragma once

#include <QString>
#include <QStringList>
#include <memory>

class QApplication;

namespace multilane {

class MainWindow;
class ReachabilityHint;
class ResumeJournal;
class SettingsStore;
class SingleInstance;
class TokenStore;
class TransferController;

// The desktop front end's composition root: settings, token store, resume journal, engine
// controller and window, made in order and wired together. main() makes one and calls run().
class DesktopApp {
public:
    DesktopApp();
    ~DesktopApp();

    // Shows the window, offers unfinished uploads, adds `paths` (files named on the command line),
    // takes later launches' files from `instance`, runs the event loop; returns the exit code.
    int run(QApplication &app, SingleInstance &instance, const QStringList &paths = {});

private:
    std::unique_ptr<SettingsStore> m_settings;
    std::unique_ptr<TokenStore> m_fileTokens;
    std::unique_ptr<TokenStore> m_tokens;
    std::unique_ptr<ResumeJournal> m_journal;
    std::unique_ptr<ReachabilityHint> m_reachability; // outlives the controller's uploads
    std::unique_ptr<TransferController> m_controller;
    std::unique_ptr<MainWindow> m_window;
    QString m_journalProblem;
    // Files named on the command line wait for the endpoints when none is set up yet.
    void addLaunchedPaths(const QStringList &paths);
};

} // namespace multilane
