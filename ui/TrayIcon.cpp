#include "TrayIcon.h"

#include <QAction>
#include <QIcon>
#include <QMenu>

namespace multilane {

TrayIcon::TrayIcon(QObject *parent)
    : QObject(parent)
    , m_menu(new QMenu)
{
    m_icon.setIcon(QIcon(QStringLiteral(":/multilane/multilane.svg")));
    m_icon.setToolTip(tr("Multilane — idle"));
    m_menu->addAction(tr("Show Multilane"), this, &TrayIcon::showRequested);
    m_pauseAction = m_menu->addAction(tr("Pause all"), this, [this] { Q_EMIT pauseAllRequested(!m_paused); });
    m_menu->addSeparator();
    m_menu->addAction(tr("Quit"), this, &TrayIcon::quitRequested);
    m_icon.setContextMenu(m_menu);
    connect(&m_icon, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
            Q_EMIT showRequested();
    });
}

TrayIcon::~TrayIcon()
{
    delete m_menu; // a context menu is not owned by the tray icon
}

void TrayIcon::setStatus(const QString &tooltip, bool paused)
{
    m_icon.setToolTip(tooltip);
    if (paused != m_paused) {
        m_paused = paused;
        m_pauseAction->setText(paused ? tr("Resume all") : tr("Pause all"));
        m_icon.setIcon(QIcon(paused ? QStringLiteral(":/multilane/multilane-paused.svg")
                                    : QStringLiteral(":/multilane/multilane.svg")));
    }
}

void TrayIcon::notify(const QString &title, const QString &message, bool failed)
{
    m_icon.showMessage(title, message, failed ? QSystemTrayIcon::Warning : QSystemTrayIcon::Information,
                       8000);
}

} // namespace multilane
