#pragma once

#include <QObject>
#include <QSystemTrayIcon>

class QAction;
class QMenu;

namespace multilane {

// The tray icon: overall progress in its tooltip, Pause/Resume all, Show and Quit in its menu,
// and the desktop notifications when a batch finishes or fails.
class TrayIcon : public QObject {
    Q_OBJECT
public:
    explicit TrayIcon(QObject *parent = nullptr);
    ~TrayIcon() override;

    static bool isAvailable() { return QSystemTrayIcon::isSystemTrayAvailable(); }
    void setVisible(bool visible) { m_icon.setVisible(visible); }
    bool isVisible() const { return m_icon.isVisible(); }
    void setStatus(const QString &tooltip, bool paused);
    void notify(const QString &title, const QString &message, bool failed);
    QString toolTip() const { return m_icon.toolTip(); }
    QMenu *menu() const { return m_menu; } // for tests and accessibility tools

Q_SIGNALS:
    void showRequested();
    void pauseAllRequested(bool pause);
    void quitRequested();

private:
    QSystemTrayIcon m_icon;
    QMenu *m_menu;
    QAction *m_pauseAction;
    bool m_paused = false;
};

} // namespace multilane
