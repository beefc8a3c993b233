#pragma once

#include "UserSettings.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
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
    QDoubleSpinBox *chunkSizeField() const { return m_chunkSize; }
    QLabel *chunkAutoNote() const { return m_chunkAutoNote; }
    QDoubleSpinBox *speedLimitField() const { return m_speedLimit; }
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
    QDoubleSpinBox *m_chunkSize;  // MB, like every size the window shows
    QLabel *m_chunkAutoNote;      // what "Automatic" does, in place of a number it would not use
    QDoubleSpinBox *m_speedLimit; // MB/s
    double m_loadedChunkMb = 0;   // a value left alone is kept to the byte, not rounded to the field
    double m_loadedLimitMbps = 0;
    QSpinBox *m_maxAttempts;
    QSpinBox *m_retryDelay;
    QComboBox *m_onConflict;
    QLineEdit *m_destination;
    QCheckBox *m_startOnDrop;
    QCheckBox *m_notifyFinish;
    QCheckBox *m_notifyFailure;
};

} // namespace multilane
