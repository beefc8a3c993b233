#pragma once

#include "UserSettings.h"

#include <QDialog>
#include <memory>
#include <optional>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace multilane {

class BandwidthProbe;
class HealthCheck;
class NetworkManagers;

// Add, edit, remove, reorder and enable endpoints; test them; import and export the endpoints
// JSON that `multilane --endpoints-file` reads. Read-only when the admin locked the list.
class EndpointsDialog : public QDialog {
    Q_OBJECT
public:
    // network: for the Test button. tokenNote: where tokens are kept, in words.
    EndpointsDialog(const QList<EndpointEntry> &entries, bool locked, const QString &managedBy,
                    const QString &tokenNote, QWidget *parent = nullptr);
    ~EndpointsDialog() override;

    const QList<EndpointEntry> &entries() const { return m_entries; }
    int currentRow() const;
    void selectRow(int row);

    // The operations behind the buttons, for the buttons and for tests.
    void addEndpoint();
    void removeCurrent();
    void moveCurrent(int delta);
    std::optional<QString> importFrom(const QString &path);
    std::optional<QString> exportTo(const QString &path, bool withTokens) const;
    void testSelected();
    // What OK checks (URLs; for https the CA file is read and the pin parsed); the problem, if
    // any, in words, with its row selected.
    std::optional<QString> validate();
    // What the Test column says for a row ("healthy, 3 ms", or the problem).
    QString testResult(int row) const;

    // The edit fields for the selected endpoint, for tests and accessibility tools.
    QLineEdit *urlField() const { return m_url; }
    QLineEdit *tokenField() const { return m_token; }
    QLineEdit *caFileField() const { return m_caFile; }
    QLineEdit *pinField() const { return m_pin; }
    QSpinBox *weightField() const { return m_weight; }
    QSpinBox *maxConnectionsField() const { return m_maxConnections; }
    QCheckBox *enabledField() const { return m_enabled; }

Q_SIGNALS:
    void testFinished();

private:
    void buildTable();
    void refreshRow(int row);
    void showCurrent();
    void storeField();
    // Checks every URL before the dialog closes; the first problem, if any.
    void probeBandwidth(int row, const Endpoint &endpoint);
    void finishTest();

    QList<EndpointEntry> m_entries;
    QStringList m_testResults;
    bool m_locked;
    bool m_loadingFields = false;
    QTableWidget *m_table;
    QLineEdit *m_url;
    QLineEdit *m_token;
    QLineEdit *m_caFile; // https: PEM CA certificates trusted besides the system's
    QLineEdit *m_pin;    // https: SHA-256 of the receiver's certificate (hex)
    QSpinBox *m_weight;
    QSpinBox *m_maxConnections;
    QCheckBox *m_enabled;
    QList<QPushButton *> m_editButtons;
    QPushButton *m_testButton;
    HealthCheck *m_health = nullptr;
    // The Test button's bandwidth probe (one endpoint at a time) and its connections.
    std::unique_ptr<NetworkManagers> m_probeManagers;
    std::unique_ptr<BandwidthProbe> m_probe;
};

} // namespace multilane
