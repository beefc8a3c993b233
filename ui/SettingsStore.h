#pragma once

#include "UserSettings.h"

#include <QObject>
#include <QSet>
#include <QStringList>
#include <QTimer>
#include <optional>

namespace multilane {

// Loads the admin's managed file, then the user's file over it, and keeps keys the admin
// locked at the admin's value. Saves after a short delay, through a temporary file renamed
// over the old one (QSaveFile), so a crash mid-save never leaves half a settings file.
class SettingsStore : public QObject {
    Q_OBJECT
public:
    // Either path may name a file that does not exist (no admin file, first start).
    SettingsStore(const QString &userFile, const QString &managedFile, QObject *parent = nullptr);
    ~SettingsStore() override; // saves what is pending

    // <AppConfigLocation>/settings.json
    static QString defaultUserFile();
    // $MULTILANE_MANAGED_CONFIG, else /etc/xdg/Multilane/managed.json
    static QString defaultManagedFile();

    // Reads both files; returns warnings a user should see (bad values, unreadable files).
    QStringList load();
    const UserSettings &values() const { return m_values; }
    // Takes the new values, except for locked keys (they keep the admin's value), and schedules
    // a save. Returns the locked keys the caller tried to change.
    QStringList update(const UserSettings &values);

    bool isLocked(const QString &key) const { return m_locked.contains(key); }
    bool hasLockedKeys() const { return !m_locked.isEmpty(); }
    // Who the admin file says manages this machine ("your IT department" when it does not say).
    QString managedBy() const { return m_managedBy; }
    QString userFile() const { return m_userFile; }

    std::optional<QString> saveNow();

Q_SIGNALS:
    void changed();

private:
    QString m_userFile;
    QString m_managedFile;
    UserSettings m_values;
    UserSettings m_managedValues; // defaults overlaid with the admin's file
    QSet<QString> m_locked;
    QString m_managedBy;
    QTimer m_saveTimer;
    bool m_dirty = false;
};

} // namespace multilane
