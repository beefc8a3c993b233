#include "MainWindow.h"

#include "DropZone.h"
#include "EndpointsDialog.h"
#include "ProgressBarDelegate.h"
#include "S3TargetDialog.h"
#include "SettingsDialog.h"
#include "SettingsStore.h"
#include "SpeedGraph.h"
#include "StatusPanel.h"
#include "TokenStore.h"
#include "TransferController.h"
#include "TransferTableModel.h"
#include "Translations.h"
#include "TrayIcon.h"
#include "Units.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

// Resources in a static library are not registered on their own.
static void initResources()
{
    Q_INIT_RESOURCE(multilane);
}

namespace multilane {

MainWindow::MainWindow(SettingsStore &settings, TokenStore &tokens, TransferController &controller,
                       const QString &journalProblem, QWidget *parent)
    : QMainWindow(parent)
    , m_settings(settings)
    , m_tokens(tokens)
    , m_controller(controller)
    , m_model(new TransferTableModel(controller, this))
{
    initResources();
    Translations::install(); // before the first %n string
    setWindowTitle(tr("Multilane"));
    setWindowIcon(QIcon(QStringLiteral(":/multilane/multilane.svg")));
    setAcceptDrops(true);
    m_clock.start();

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(8, 8, 8, 4);

    auto *top = new QHBoxLayout;
    m_dropZone = new DropZone(central);
    connect(m_dropZone, &DropZone::pathsDropped, this, [this](const QStringList &paths) { addPaths(paths); });
    top->addWidget(m_dropZone, 1);
    m_graph = new SpeedGraph(central);
    top->addWidget(m_graph);
    layout->addLayout(top);

    createTable(central);
    layout->addWidget(m_table, 1);
    setCentralWidget(central);

    createActions();
    m_status = new StatusPanel(controller, *m_model, statusBar());

    connect(m_table, &QTableView::customContextMenuRequested, this, [this](const QPoint &pos) {
        QMenu menu(this);
        menu.addActions({m_pauseSelected, m_resumeSelected, m_cancelSelected, m_retrySelected});
        menu.addSeparator();
        menu.addActions({m_showInFolder, m_removeSelected, m_clearFinished});
        menu.exec(m_table->viewport()->mapToGlobal(pos));
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::updateActions);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &MainWindow::updateActions);
    connect(m_table, &QTableView::doubleClicked, this, &MainWindow::showInFolder);

    connect(&controller, &TransferController::onlineChanged, this, &MainWindow::refreshStatus);
    connect(&controller, &TransferController::linkChanged, this, [this](const QString &failed) {
        if (!failed.isEmpty())
            statusBar()->showMessage(tr("Could not measure the link: %1").arg(failed), 10000);
        refreshStatus();
    });
    connect(&controller, &TransferController::warning, this,
            [this](const QString &message) { statusBar()->showMessage(message, 20000); });
    connect(&controller, &TransferController::pausedChanged, this, &MainWindow::refreshStatus);
    // One steady tick for the figures, the status bar and the graph: twice a second reads
    // calmly (Transmission and qBittorrent refresh every one to two seconds), and the graph moves
    // on when nothing does (a paused or idle transfer draws a flat line).
    m_tickTimer.setInterval(TickMs);
    connect(&m_tickTimer, &QTimer::timeout, this, [this] { tick(m_clock.elapsed()); });
    m_tickTimer.start();

    if (TrayIcon::isAvailable()) {
        m_tray = new TrayIcon(this);
        m_tray->setVisible(true);
        connect(m_tray, &TrayIcon::showRequested, this, [this] {
            showNormal();
            raise();
            activateWindow();
        });
        connect(m_tray, &TrayIcon::pauseAllRequested, this,
                [this](bool pause) { pause ? m_controller.pauseAll() : m_controller.resumeAll(); });
        connect(m_tray, &TrayIcon::quitRequested, this, &MainWindow::quitForGood);
        connect(this, &MainWindow::notificationPosted, m_tray, &TrayIcon::notify);
    }
    connect(
        &controller, &TransferController::batchFinished, this, [this](const QString &summary, bool failed) {
            const UserSettings &s = m_settings.values();
            if (failed ? s.notifyOnFailure : s.notifyOnFinish)
                Q_EMIT notificationPosted(
                    failed ? tr("Upload finished with failures") : tr("Upload finished"), summary, failed);
            statusBar()->showMessage(summary, 10000);
        });

    if (!journalProblem.isEmpty())
        statusBar()->showMessage(journalProblem, 20000);
    updateActions();
    refreshStatus();
    resize(1000, 600);
}

MainWindow::~MainWindow() = default;

void MainWindow::createTable(QWidget *parent)
{
    m_table = new QTableView(parent);
    m_table->setModel(m_model);
    m_table->setItemDelegateForColumn(TransferTableModel::Progress, new ProgressBarDelegate(m_table));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 10);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->setAccessibleName(tr("Transfers"));
    QHeaderView *header = m_table->horizontalHeader();
    header->setSectionResizeMode(TransferTableModel::Name, QHeaderView::Stretch);
    header->resizeSection(TransferTableModel::Size, 80);
    header->resizeSection(TransferTableModel::Progress, 140);
    header->resizeSection(TransferTableModel::Speed, 90);
    header->resizeSection(TransferTableModel::Eta, 60);
    header->resizeSection(TransferTableModel::State, 150);
    header->resizeSection(TransferTableModel::Endpoints, 160);
    header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
}

void MainWindow::createActions()
{
    auto make = [this](const QString &text, const QKeySequence &key, const QString &iconName,
                       QStyle::StandardPixmap fallback, auto slot) {
        auto *action = new QAction(QIcon::fromTheme(iconName, style()->standardIcon(fallback)), text, this);
        action->setShortcut(key);
        action->setToolTip(QStringLiteral("%1 (%2)").arg(QString(text).remove(QLatin1Char('&')),
                                                         key.toString(QKeySequence::NativeText)));
        connect(action, &QAction::triggered, this, slot);
        addAction(action); // shortcuts work even when the toolbar is hidden
        return action;
    };
    m_addFiles = make(tr("Add &files…"), QKeySequence::Open, QStringLiteral("document-open"),
                      QStyle::SP_FileIcon, &MainWindow::addFilesDialog);
    m_addFolder = make(tr("Add f&older…"), QKeySequence(tr("Ctrl+Shift+O")), QStringLiteral("folder-open"),
                       QStyle::SP_DirIcon, &MainWindow::addFolderDialog);
    m_pauseAll =
        make(tr("&Pause all"), QKeySequence(tr("Ctrl+Shift+P")), QStringLiteral("media-playback-pause"),
             QStyle::SP_MediaPause, &MainWindow::togglePauseAll);
    m_pauseSelected =
        make(tr("Pa&use"), QKeySequence(tr("Ctrl+P")), QStringLiteral("media-playback-pause"),
             QStyle::SP_MediaPause, [this] {
                 onSelection(tr("pause"), [this](const QList<int> &rows) { m_model->setPaused(rows, true); });
             });
    m_resumeSelected = make(
        tr("&Resume"), QKeySequence(tr("Ctrl+R")), QStringLiteral("media-playback-start"),
        QStyle::SP_MediaPlay, [this] {
            onSelection(tr("resume"), [this](const QList<int> &rows) { m_model->setPaused(rows, false); });
        });
    m_cancelSelected = make(
        tr("&Cancel"), QKeySequence(tr("Ctrl+.")), QStringLiteral("process-stop"), QStyle::SP_BrowserStop,
        [this] { onSelection(tr("cancel"), [this](const QList<int> &rows) { m_model->cancel(rows); }); });
    m_retrySelected =
        make(tr("Re&try"), QKeySequence(tr("Ctrl+Shift+R")), QStringLiteral("view-refresh"),
             QStyle::SP_BrowserReload,
             [this] { onSelection(tr("retry"), [this](const QList<int> &rows) { m_model->retry(rows); }); });
    m_removeSelected = make(
        tr("Re&move from list"), QKeySequence::Delete, QStringLiteral("list-remove"), QStyle::SP_TrashIcon,
        [this] { onSelection(tr("remove"), [this](const QList<int> &rows) { m_model->remove(rows); }); });
    m_showInFolder = make(tr("&Show in folder"), QKeySequence(tr("Ctrl+Return")), QStringLiteral("folder"),
                          QStyle::SP_DirOpenIcon, &MainWindow::showInFolder);
    m_clearFinished = make(tr("C&lear finished"), QKeySequence(tr("Ctrl+L")), QStringLiteral("edit-clear"),
                           QStyle::SP_DialogResetButton, [this] { m_model->clearFinished(); });
    QAction *settings = make(tr("&Settings…"), QKeySequence::Preferences, QStringLiteral("configure"),
                             QStyle::SP_FileDialogDetailedView, &MainWindow::openSettings);
    if (settings->shortcut().isEmpty())
        settings->setShortcut(QKeySequence(tr("Ctrl+,")));
    QAction *endpoints = make(tr("&Endpoints…"), QKeySequence(tr("Ctrl+E")), QStringLiteral("network-server"),
                              QStyle::SP_DriveNetIcon, &MainWindow::openEndpoints);
    QAction *s3Target =
        make(tr("S&3 target…"), QKeySequence(tr("Ctrl+Shift+E")), QStringLiteral("folder-remote"),
             QStyle::SP_DriveNetIcon, &MainWindow::openS3Target);
    QAction *quit = make(tr("&Quit"), QKeySequence::Quit, QStringLiteral("application-exit"),
                         QStyle::SP_DialogCloseButton, &MainWindow::close);

    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addActions({m_addFiles, m_addFolder});
    file->addSeparator();
    file->addAction(quit);
    QMenu *transfers = menuBar()->addMenu(tr("&Transfers"));
    transfers->addActions({m_pauseAll});
    transfers->addSeparator();
    transfers->addActions({m_pauseSelected, m_resumeSelected, m_cancelSelected, m_retrySelected});
    transfers->addSeparator();
    transfers->addActions({m_showInFolder, m_removeSelected, m_clearFinished});
    QMenu *tools = menuBar()->addMenu(tr("T&ools"));
    tools->addActions({settings, endpoints, s3Target});

    createToolbar(
        {m_addFiles, m_addFolder, nullptr, m_pauseAll, m_clearFinished, nullptr, settings, endpoints});
}

void MainWindow::createToolbar(const QList<QAction *> &actions)
{
    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    for (QAction *action : actions) {
        if (action)
            toolbar->addAction(action);
        else
            toolbar->addSeparator();
    }
    // Pause all and Resume all take the same room, so the buttons after it stay put.
    if (QWidget *button = toolbar->widgetForAction(m_pauseAll)) {
        int widest = 0;
        for (const QString &text : {tr("&Resume all"), tr("&Pause all")}) {
            m_pauseAll->setText(text);
            widest = std::max(widest, button->sizeHint().width());
        }
        button->setMinimumWidth(widest);
    }
}

void MainWindow::onSelection(const QString &what, const std::function<void(const QList<int> &)> &act)
{
    const QList<int> rows = selectedRows();
    if (rows.isEmpty()) {
        statusBar()->showMessage(
            tr("Select the files to %1 first (click a row; Ctrl+A selects all). Pause all: Ctrl+Shift+P.")
                .arg(what),
            8000);
        return;
    }
    act(rows);
    updateActions();
}

QStringList MainWindow::addPaths(const QStringList &paths)
{
    const TransferController::AddResult result = m_controller.addPaths(paths);
    showProblems(result.errors);
    if (result.files > 0)
        statusBar()->showMessage(tr("Added %n file(s)", nullptr, result.files), 4000);
    tick(m_clock.elapsed()); // the new rows count in the totals and the title at once
    return result.errors;
}

void MainWindow::showProblems(const QStringList &problems)
{
    if (problems.isEmpty())
        return;
    // In tests (offscreen) a modal box would block; the status bar still says it.
    statusBar()->showMessage(problems.first(), 15000);
    if (QGuiApplication::platformName() != QLatin1String("offscreen"))
        QMessageBox::warning(this, tr("Multilane"), problems.join(QLatin1Char('\n')));
}

void MainWindow::offerUnfinished()
{
    const int files = m_controller.unfinishedFiles();
    if (files == 0)
        return;
    // Named, so the choice is about files the user recognises; a long list goes to the details.
    constexpr int Shown = 5;
    const QStringList names = m_controller.unfinishedNames();
    QStringList lines;
    for (qsizetype i = 0; i < names.size() && i < Shown; ++i)
        lines.append(QStringLiteral("  • ") + names.at(i));
    if (names.size() > Shown)
        lines.append(tr("  and %n more", nullptr, int(names.size() - Shown)));
    QMessageBox box(QMessageBox::Question, tr("Unfinished uploads"),
                    tr("%n file(s) (%1) did not finish uploading last time:", nullptr, files)
                            .arg(Units::size(m_controller.unfinishedBytes())) +
                        QLatin1Char('\n') + lines.join(QLatin1Char('\n')) + QStringLiteral("\n\n") +
                        tr("Continue where they stopped?"),
                    QMessageBox::NoButton, this);
    if (names.size() > Shown)
        box.setDetailedText(names.join(QLatin1Char('\n')));
    QPushButton *resume = box.addButton(tr("&Resume"), QMessageBox::AcceptRole);
    QPushButton *discard = box.addButton(tr("&Discard"), QMessageBox::DestructiveRole);
    box.addButton(tr("&Later"), QMessageBox::RejectRole);
    box.setDefaultButton(resume);
    box.exec();
    if (box.clickedButton() == resume)
        showProblems(m_controller.resumeUnfinished());
    else if (box.clickedButton() == discard)
        m_controller.discardUnfinished();
}

void MainWindow::addFilesDialog()
{
    const QStringList files = QFileDialog::getOpenFileNames(this, tr("Add files to upload"));
    if (!files.isEmpty())
        addPaths(files);
}

void MainWindow::addFolderDialog()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Add a folder to upload"));
    if (!folder.isEmpty())
        addPaths({folder});
}

void MainWindow::openSettings()
{
    SettingsDialog dialog(m_settings, this);
    connect(&dialog, &SettingsDialog::endpointsRequested, this, &MainWindow::openEndpoints);
    dialog.exec();
    refreshStatus();
}

void MainWindow::openEndpoints()
{
    const bool locked = m_settings.isLocked(SettingKeys::endpoints());
    EndpointsDialog dialog(m_settings.values().endpoints, locked, m_settings.managedBy(),
                           m_tokens.description(), this);
    if (dialog.exec() != QDialog::Accepted || locked)
        return;
    UserSettings values = m_settings.values();
    values.endpoints = dialog.entries();
    if (const std::optional<QString> problem = m_tokens.storeTokens(values.endpoints))
        showProblems({*problem});
    m_settings.update(values);
    m_controller.measureLink(); // new endpoints, new link
    refreshStatus();
}

void MainWindow::openS3Target()
{
    S3TargetDialog dialog(m_settings, m_tokens, this);
    dialog.exec();
    refreshStatus();
}

QList<int> MainWindow::selectedRows() const
{
    QList<int> rows;
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows())
        rows.append(index.row());
    return rows;
}

void MainWindow::updateActions()
{
    bool canPause = false, canResume = false, canCancel = false, canRetry = false;
    const QList<int> rows = selectedRows();
    for (int row : rows) {
        const TransferJob &job = m_model->job(row);
        const bool running = !isTerminal(job.state());
        canPause |= running && !job.paused;
        canResume |= running && job.paused;
        canCancel |= running;
        canRetry |= job.state() == TransferState::Failed || job.state() == TransferState::Cancelled;
    }
    // With nothing selected they stay on, so their shortcuts say what to select rather than
    // doing nothing; with a selection, only what fits it.
    const bool none = rows.isEmpty();
    m_pauseSelected->setEnabled(none || canPause);
    m_resumeSelected->setEnabled(none || canResume);
    m_cancelSelected->setEnabled(none || canCancel);
    m_retrySelected->setEnabled(none || canRetry);
    m_removeSelected->setEnabled(true);
    m_showInFolder->setEnabled(rows.size() == 1);
}

QString MainWindow::statusText() const
{
    QStringList parts{m_status->speedText(), m_status->totalText()};
    if (!m_status->connectionsText().isEmpty())
        parts.append(m_status->connectionsText());
    parts += {m_status->linkText(), m_status->badgeText()};
    return parts.join(QStringLiteral(" · "));
}

void MainWindow::tick(qint64 nowMs)
{
    m_model->updateFigures(nowMs, m_controller.delivery());
    m_graph->addSample(nowMs, m_model->totals().bytesPerSecond.value_or(0));
    refreshStatus();
}

void MainWindow::refreshStatus()
{
    m_status->refresh();
    const bool paused = m_controller.isPaused();
    m_pauseAll->setText(paused ? tr("&Resume all") : tr("&Pause all"));
    m_pauseAll->setIcon(style()->standardIcon(paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));

    // The title and the tray say what the list holds: rows cleared away no longer count.
    const bool busy = m_controller.isBusy();
    const int files = m_model->rowCount();
    setWindowTitle(busy ? tr("%1% — Multilane").arg(m_status->percent()) : tr("Multilane"));
    if (m_tray) {
        const QString summary =
            busy ? tr("Multilane — %1% · %2").arg(m_status->percent()).arg(m_status->speedText())
                 : tr("Multilane — %1").arg(files > 0 ? tr("all done") : tr("idle"));
        m_tray->setStatus(summary + QLatin1Char('\n') + m_status->totalText(), paused);
    }
}

void MainWindow::togglePauseAll()
{
    m_controller.isPaused() ? m_controller.resumeAll() : m_controller.pauseAll();
}

void MainWindow::showInFolder()
{
    const QList<int> rows = selectedRows();
    if (rows.size() != 1)
        return;
    const QString path =
        m_model->data(m_model->index(rows.first(), 0), TransferTableModel::LocalPathRole).toString();
    QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(path).absolutePath()));
}

void MainWindow::quitForGood()
{
    m_quitting = true;
    m_controller.pauseAll(); // the journal keeps the place; the next start offers to resume
    QApplication::quit();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_quitting || !m_controller.isBusy()) {
        event->accept();
        QApplication::quit();
        return;
    }
    // The question offers exactly what the buttons do: without a tray there is nowhere to keep going.
    const QString question =
        m_tray ? tr("Uploads are still running. Keep them going in the tray, or pause them and quit?")
               : tr("Uploads are still running. Pause them and quit?");
    QMessageBox box(QMessageBox::Question, tr("Uploads are running"),
                    question + QLatin1Char(' ') +
                        tr("Paused uploads are offered for resume the next time Multilane starts."),
                    QMessageBox::NoButton, this);
    QPushButton *keep =
        m_tray ? box.addButton(tr("&Keep uploading in the tray"), QMessageBox::AcceptRole) : nullptr;
    QPushButton *quit = box.addButton(tr("&Pause and quit"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(keep ? keep : quit);
    box.exec();
    if (keep && box.clickedButton() == keep) {
        hide();
        event->ignore();
        Q_EMIT notificationPosted(tr("Multilane keeps uploading"),
                                  tr("Find it in the tray; its menu pauses or quits."), false);
    } else if (box.clickedButton() == quit) {
        event->accept();
        quitForGood();
    } else {
        event->ignore();
    }
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!DropZone::localPaths(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QStringList paths = DropZone::localPaths(event->mimeData());
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    addPaths(paths);
}

} // namespace multilane
