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

class EndpointTester;

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
    // Tests every endpoint in the list (see EndpointTester).
    void testAll();
    // What OK checks (URLs; for https the CA file is read and the pin parsed); the problem, if
    // any, in words, with its row selected.
    std::optional<QString> validate();
    // What the Test column says for a row ("OK · 4.92 MB/s up · round trip 0.4 ms", or the problem).
    QString testResult(int row) const;
    // What the URL column shows for a row: the URL as it will be used, or what was typed and why
    // it is not one.
    QString urlCell(int row) const;

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
    // The URL field's text as the row's URL ("host:port" gets http://), or kept as typed with
    // why it is not one.
    void storeUrl(int row, const QString &typed);
    void finishTest();

    // What the dialog knows of a row besides its entry.
    struct RowNotes {
        QString test;       // the Test column
        QString typed;      // what was typed, while it is not a URL (else empty)
        QString urlProblem; // why it is not
    };
    QList<EndpointEntry> m_entries;
    QList<RowNotes> m_notes;
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
    EndpointTester *m_tester;
    QList<int> m_testedRows; // the row each tested endpoint stands for
};

} // namespace multilane
