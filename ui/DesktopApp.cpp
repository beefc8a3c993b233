#include "DesktopApp.h"

#include "FileTokenStore.h"
#include "MainWindow.h"
#include "ReachabilityHint.h"
#include "ResumeJournal.h"
#include "SettingsStore.h"
#include "SingleInstance.h"
#include "TransferController.h"
#include "Translations.h"
#ifdef MULTILANE_HAVE_KEYCHAIN
#include "KeychainTokenStore.h"
#endif

#include <QApplication>
#include <QCoreApplication>
#include <QIcon>
#include <QMessageBox>
#include <QTimer>

namespace multilane {

DesktopApp::DesktopApp() = default;
DesktopApp::~DesktopApp()
{
    // The window and controller hold references into the others: tear down in reverse.
    m_window.reset();
    m_controller.reset();
    m_journal.reset();
}

int DesktopApp::run(QApplication &app, SingleInstance &instance, const QStringList &paths)
{
    Translations::install();
    app.setWindowIcon(QIcon(QStringLiteral(":/multilane/multilane.svg")));
    QGuiApplication::setDesktopFileName(QStringLiteral("org.multilane.Multilane"));
    // Closing the window may mean "keep going in the tray": quitting is decided by MainWindow.
    app.setQuitOnLastWindowClosed(false);

    m_settings = std::make_unique<SettingsStore>(SettingsStore::defaultUserFile(),
                                                 SettingsStore::defaultManagedFile());
    const QStringList warnings = m_settings->load();

    m_fileTokens = std::make_unique<FileTokenStore>(FileTokenStore::defaultPath());
#ifdef MULTILANE_HAVE_KEYCHAIN
    m_tokens = std::make_unique<KeychainTokenStore>(*m_fileTokens);
#endif
    TokenStore &tokens = m_tokens ? *m_tokens : *m_fileTokens;
    if (!m_settings->isLocked(SettingKeys::endpoints())) {
        UserSettings values = m_settings->values();
        tokens.fillTokens(values.endpoints);
        m_settings->update(values);
    }
    if (UserSettings values = m_settings->values(); !values.s3.accessKeyId.isEmpty()) {
        values.s3.secretAccessKey = QString::fromUtf8(tokens.read(values.s3.secretKeyName()));
        m_settings->update(values);
    }

    m_journal = std::make_unique<ResumeJournal>(ResumeJournal::defaultDirectory());
    if (const std::optional<QString> problem = m_journal->open()) {
        // Typically a `multilane upload` in a terminal holds the journal's lock right now.
        m_journalProblem =
            QCoreApplication::translate("DesktopApp",
                                        "Uploads from this window cannot be resumed after a crash: %1. Is a "
                                        "command-line upload running? It holds the journal until it ends.")
                .arg(*problem);
        m_journal.reset();
    }
    m_reachability = std::make_unique<ReachabilityHint>(ReachabilityHint::systemBackend());
    m_controller = std::make_unique<TransferController>(*m_settings, m_journal.get(), m_reachability.get());
    // Uploads under way follow the network themselves; the status bar's figures follow it here.
    QObject::connect(m_reachability.get(), &ReachabilityHint::networkReturned, m_controller.get(),
                     &TransferController::measureLink);
    QObject::connect(m_reachability.get(), &ReachabilityHint::networkChanged, m_controller.get(),
                     &TransferController::measureLink);
    m_window = std::make_unique<MainWindow>(*m_settings, tokens, *m_controller, m_journalProblem);
    m_window->show();
    if (!warnings.isEmpty())
        QMessageBox::warning(m_window.get(), QCoreApplication::translate("DesktopApp", "Settings"),
                             warnings.join(QLatin1Char('\n')));
    QTimer::singleShot(0, m_window.get(), [this, paths] {
        m_window->offerUnfinished();
        if (m_settings->values().endpoints.isEmpty())
            m_window->openEndpoints();
        else
            m_controller->measureLink();
        addLaunchedPaths(paths);
    });
    // `multilane FILE…` again while this window runs: its files come here, and the window comes up.
    QObject::connect(&instance, &SingleInstance::pathsReceived, m_window.get(),
                     [this](const QStringList &more) {
                         m_window->showNormal();
                         m_window->raise();
                         m_window->activateWindow();
                         addLaunchedPaths(more);
                     });
    return app.exec();
}

void DesktopApp::addLaunchedPaths(const QStringList &paths)
{
    if (paths.isEmpty())
        return;
    if (m_settings->values().enabledEndpoints().isEmpty())
        m_window->openEndpoints(); // "Open with Multilane" before any endpoint: set one up, then send
    m_window->addPaths(paths);
}

} // namespace multilane
