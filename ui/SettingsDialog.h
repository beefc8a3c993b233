#pragma once

#include "UserSettings.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace multilane {

class SettingsStore;

// Connections, chunk size, speed limit, retries, notifications and where files land. Fields
// the admin locked are read-only with a note naming who manages them.
class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SettingsDialog(SettingsStore &store, QWidget *parent = nullptr);

    // What the fields say now, on top of the stored settings (endpoints are left as stored).
    UserSettings editedValues() const;
    // Hands the fields to the store; returns the locked keys it refused.
    QStringList apply();

Q_SIGNALS:
    void endpointsRequested();

private:
    void load(const UserSettings &values);
    void lock(const QString &key, const QList<QWidget *> &widgets);
    void updateEnabled();

    SettingsStore &m_store;
    QLabel *m_managedNote;
    QSpinBox *m_connections;
    QComboBox *m_chunkMode;
    QSpinBox *m_chunkSize;
    QSpinBox *m_speedLimit;
    QSpinBox *m_maxAttempts;
    QSpinBox *m_retryDelay;
    QComboBox *m_onConflict;
    QLineEdit *m_destination;
    QCheckBox *m_startOnDrop;
    QCheckBox *m_notifyFinish;
    QCheckBox *m_notifyFailure;
};

} // namespace multilane
