#include "MainWindow.h"

#include "ByteSize.h"
#include "DropZone.h"
#include "EndpointsDialog.h"
#include "ProgressBarDelegate.h"
#include "S3TargetDialog.h"
#include "SettingsDialog.h"
#include "SettingsStore.h"
#include "SpeedGraph.h"
#include "TokenStore.h"
#include "TransferController.h"
#include "TransferTableModel.h"
#include "TrayIcon.h"

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

    m_table = new QTableView(central);
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
    layout->addWidget(m_table, 1);
    setCentralWidget(central);

    createActions();
    createStatusBar();

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

    connect(&controller, &TransferController::progressChanged, this, &MainWindow::refreshStatus);
    connect(&controller, &TransferController::onlineChanged, this, &MainWindow::refreshStatus);
    connect(&controller, &TransferController::linkChanged, this, [this](const QString &failed) {
        if (!failed.isEmpty())
            statusBar()->showMessage(tr("Could not measure the link: %1").arg(failed), 10000);
        refreshStatus();
    });
    connect(&controller, &TransferController::warning, this,
            [this](const QString &message) { statusBar()->showMessage(message, 20000); });
    connect(&controller, &TransferController::pausedChanged, this, &MainWindow::refreshStatus);
    // The graph moves on even when no tick comes (a paused or idle transfer draws a flat line).
    m_graphTimer.setInterval(1000);
    connect(&m_graphTimer, &QTimer::timeout, this, &MainWindow::refreshStatus);
    m_graphTimer.start();

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
    m_pauseSelected = make(tr("Pa&use"), QKeySequence(tr("Ctrl+P")), QStringLiteral("media-playback-pause"),
                           QStyle::SP_MediaPause, [this] { m_model->setPaused(selectedRows(), true); });
    m_resumeSelected = make(tr("&Resume"), QKeySequence(tr("Ctrl+R")), QStringLiteral("media-playback-start"),
                            QStyle::SP_MediaPlay, [this] { m_model->setPaused(selectedRows(), false); });
    m_cancelSelected = make(tr("&Cancel"), QKeySequence(tr("Ctrl+.")), QStringLiteral("process-stop"),
                            QStyle::SP_BrowserStop, [this] { m_model->cancel(selectedRows()); });
    m_retrySelected = make(tr("Re&try"), QKeySequence(tr("Ctrl+Shift+R")), QStringLiteral("view-refresh"),
                           QStyle::SP_BrowserReload, [this] { m_model->retry(selectedRows()); });
    m_removeSelected = make(tr("Re&move from list"), QKeySequence::Delete, QStringLiteral("list-remove"),
                            QStyle::SP_TrashIcon, [this] { m_model->remove(selectedRows()); });
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

    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->addActions({m_addFiles, m_addFolder});
    toolbar->addSeparator();
    toolbar->addActions({m_pauseAll, m_clearFinished});
    toolbar->addSeparator();
    toolbar->addActions({settings, endpoints});
}

void MainWindow::createStatusBar()
{
    m_speedLabel = new QLabel(this);
    m_speedLabel->setAccessibleName(tr("Total speed"));
    m_totalLabel = new QLabel(this);
    m_totalLabel->setAccessibleName(tr("Overall progress"));
    m_onlineBadge = new QLabel(this);
    m_onlineBadge->setAccessibleName(tr("Network state"));
    m_onlineBadge->setMargin(2);
    m_connectionsLabel = new QLabel(this);
    m_connectionsLabel->setAccessibleName(tr("Connections per endpoint"));
    m_chunkLabel = new QLabel(this);
    m_chunkLabel->setAccessibleName(tr("Measured link and chunk size")); // tooltip set by refreshStatus
    statusBar()->addWidget(m_speedLabel);
    statusBar()->addWidget(m_totalLabel, 1);
    statusBar()->addPermanentWidget(m_connectionsLabel);
    statusBar()->addPermanentWidget(m_chunkLabel);
    statusBar()->addPermanentWidget(m_onlineBadge);
}

QStringList MainWindow::addPaths(const QStringList &paths)
{
    const TransferController::AddResult result = m_controller.addPaths(paths);
    showProblems(result.errors);
    if (result.files > 0)
        statusBar()->showMessage(tr("Added %n file(s)", nullptr, result.files), 4000);
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
    QMessageBox box(
        QMessageBox::Question, tr("Unfinished uploads"),
        tr("%n file(s) (%1) did not finish uploading last time. Continue where they stopped?", nullptr, files)
            .arg(ByteSize::format(m_controller.unfinishedBytes())),
        QMessageBox::NoButton, this);
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
    m_pauseSelected->setEnabled(canPause);
    m_resumeSelected->setEnabled(canResume);
    m_cancelSelected->setEnabled(canCancel);
    m_retrySelected->setEnabled(canRetry);
    m_removeSelected->setEnabled(!rows.isEmpty());
    m_showInFolder->setEnabled(rows.size() == 1);
}

QString MainWindow::statusText() const
{
    return m_speedLabel->text() + QStringLiteral(" · ") + m_totalLabel->text() + QStringLiteral(" · ") +
           m_chunkLabel->text();
}

void MainWindow::refreshStatus()
{
    const TransferProgress p = m_controller.totals();
    const bool busy = m_controller.isBusy();
    // Speed from bytes put on the wire: files skipped as already there count as done at once
    // and would draw a spike no link ever carried.
    const qint64 now = m_clock.elapsed();
    m_rate.addSample(now, p.bytesSent);
    const double speed = busy && !p.paused ? m_rate.bytesPerSecond(now) : 0;
    m_graph->addSample(now, speed);
    m_speedLabel->setText(busy && !p.paused ? tr("↑ %1").arg(ByteSize::formatRate(speed)) : tr("↑ idle"));
    const int finished = p.filesDone + p.filesSkipped;
    m_totalLabel->setText(
        p.filesTotal == 0 ? tr("Drop files to start")
                          : tr("%1 of %2 · %3 of %4 files%5")
                                .arg(ByteSize::format(p.bytesDone), ByteSize::format(p.bytesTotal))
                                .arg(finished)
                                .arg(p.filesTotal)
                                .arg(p.filesFailed > 0 ? tr(" · %1 failed").arg(p.filesFailed) : QString()));
    // The level and why in the bar; the tooltip adds how many are open to each endpoint now.
    QStringList named;
    for (const auto &[name, count] : m_controller.connectionsPerEndpoint())
        named.append(tr("%1: %n open", nullptr, count).arg(name));
    m_connectionsLabel->setText(busy && p.connections > 0 ? tr("%n connection(s)", nullptr, p.connections)
                                                          : QString());
    m_connectionsLabel->setToolTip(QStringList(p.connectionsReason).join(QString()) + QLatin1Char('\n') +
                                   named.join(QLatin1Char('\n')));
    m_connectionsLabel->setVisible(busy && p.connections > 0);

    const UserSettings &s = m_settings.values();
    const std::optional<LinkEstimate> &link = m_controller.link();
    const QString linkText = m_controller.isMeasuringLink() ? tr("Uplink: measuring…")
                             : link                         ? tr("Uplink %1, %2 ms")
                                          .arg(ByteSize::formatRate(link->bytesPerSecond))
                                          .arg(link->rttMs, 0, 'f', link->rttMs < 10 ? 1 : 0)
                                    : tr("Uplink: not measured");
    const qint64 chunk = m_controller.currentOptions().chunkSize;
    m_chunkLabel->setText(s.chunkSizeAuto ? tr("%1 · chunk %2 (auto)").arg(linkText, ByteSize::format(chunk))
                                          : tr("%1 · chunk %2").arg(linkText, ByteSize::format(s.chunkSize)));
    m_chunkLabel->setToolTip(
        link ? tr("Upload rate measured over %1 connections: %2").arg(link->connections).arg(link->reason)
             : tr("The uplink is measured when the window opens, when the endpoints change and "
                  "when the network comes back."));

    const bool online = p.online;
    m_onlineBadge->setText(p.paused  ? tr(" Paused ")
                           : !online ? tr(" Waiting for network ")
                           : busy    ? tr(" Online ")
                                     : tr(" Ready "));
    m_onlineBadge->setStyleSheet(
        p.paused ? QStringLiteral("QLabel { background: #8a8f96; color: white; border-radius: 3px; }")
        : online ? QStringLiteral("QLabel { background: #2e8b57; color: white; border-radius: 3px; }")
                 : QStringLiteral("QLabel { background: #c0392b; color: white; border-radius: 3px; }"));
    m_pauseAll->setText(p.paused ? tr("&Resume all") : tr("&Pause all"));
    m_pauseAll->setIcon(style()->standardIcon(p.paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));

    const int percent = p.bytesTotal > 0 ? int(100 * p.bytesDone / p.bytesTotal) : 0;
    const QString summary = busy ? tr("Multilane — %1% · %2").arg(percent).arg(m_speedLabel->text())
                                 : tr("Multilane — %1").arg(p.filesTotal > 0 ? tr("all done") : tr("idle"));
    setWindowTitle(busy ? tr("%1% — Multilane").arg(percent) : tr("Multilane"));
    if (m_tray)
        m_tray->setStatus(summary + QLatin1Char('\n') + m_totalLabel->text(), p.paused);
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
    QMessageBox box(
        QMessageBox::Question, tr("Uploads are running"),
        tr("Uploads are still running. Keep them going in the tray, or pause them and quit? Paused "
           "uploads are offered for resume the next time Multilane starts."),
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
