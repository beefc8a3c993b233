#include "EndpointsDialog.h"

#include "EndpointTester.h"
#include "SettingsJson.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace multilane {

enum Column { EnabledColumn, UrlColumn, WeightColumn, ConnectionsColumn, TestColumn, ColumnCount };

EndpointsDialog::EndpointsDialog(const QList<EndpointEntry> &entries, bool locked, const QString &managedBy,
                                 const QString &tokenNote, QWidget *parent)
    : QDialog(parent)
    , m_entries(entries)
    , m_locked(locked)
    , m_tester(new EndpointTester(this))
{
    setWindowTitle(tr("Endpoints"));
    m_notes = QList<RowNotes>(m_entries.size());
    connect(m_tester, &EndpointTester::resultChanged, this, [this](int index) {
        const int row = m_testedRows.value(index, -1);
        if (row >= 0 && row < m_notes.size()) {
            m_notes[row].test = m_tester->results().at(index);
            refreshRow(row);
        }
    });
    connect(m_tester, &EndpointTester::finished, this, &EndpointsDialog::finishTest);
    auto *layout = new QVBoxLayout(this);

    auto *note = new QLabel(this);
    note->setWordWrap(true);
    note->setText(locked ? tr("The endpoint list is managed by %1 and cannot be changed here. %2")
                               .arg(managedBy, tokenNote)
                         : tokenNote);
    layout->addWidget(note);

    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setHorizontalHeaderLabels({tr("On"), tr("URL"), tr("Weight"), tr("Max conn."), tr("Test")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The URL is what identifies a row: always whole. A long test result is elided (its
    // tooltip has all of it).
    m_table->horizontalHeader()->setSectionResizeMode(TestColumn, QHeaderView::Stretch);
    m_table->setWordWrap(false);
    m_table->setAccessibleName(tr("Endpoint list"));
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &EndpointsDialog::showCurrent);

    auto *side = new QVBoxLayout;
    auto button = [&](const QString &text, const QString &accessible, auto slot, bool editing) {
        auto *b = new QPushButton(text, this);
        b->setAccessibleName(accessible);
        connect(b, &QPushButton::clicked, this, slot);
        side->addWidget(b);
        if (editing)
            m_editButtons.append(b);
        return b;
    };
    button(tr("&Add"), tr("Add endpoint"), &EndpointsDialog::addEndpoint, true);
    button(tr("&Remove"), tr("Remove endpoint"), &EndpointsDialog::removeCurrent, true);
    button(
        tr("Move &up"), tr("Move endpoint up"), [this] { moveCurrent(-1); }, true);
    button(
        tr("Move &down"), tr("Move endpoint down"), [this] { moveCurrent(1); }, true);
    m_testButton = button(tr("&Test"), tr("Test endpoints"), &EndpointsDialog::testAll, false);
    m_testButton->setToolTip(
        tr("Checks that every endpoint in the list answers as a multilane receiver and takes its token, "
           "then measures the upload to each for a second."));
    side->addSpacing(12);
    button(
        tr("&Import…"), tr("Import endpoints file"),
        [this] {
            const QString path = QFileDialog::getOpenFileName(this, tr("Import endpoints"), {},
                                                              tr("Endpoints (*.json *.txt);;All files (*)"));
            if (path.isEmpty())
                return;
            if (const std::optional<QString> problem = importFrom(path))
                QMessageBox::warning(this, tr("Import endpoints"), *problem);
        },
        true);
    QPushButton *exportButton = button(
        tr("&Export…"), tr("Export endpoints file"),
        [this] {
            const QString path = QFileDialog::getSaveFileName(
                this, tr("Export endpoints"), QStringLiteral("endpoints.json"), tr("Endpoints (*.json)"));
            if (path.isEmpty())
                return;
            const bool tokens =
                QMessageBox::question(this, tr("Export endpoints"),
                                      tr("Include the tokens? Anyone who can read the file can then "
                                         "upload to these endpoints.")) == QMessageBox::Yes;
            if (const std::optional<QString> problem = exportTo(path, tokens))
                QMessageBox::warning(this, tr("Export endpoints"), *problem);
        },
        false);
    exportButton->setToolTip(tr("Writes the file `multilane upload --endpoints-file` reads."));
    side->addStretch();

    auto *top = new QHBoxLayout;
    top->addWidget(m_table, 1);
    top->addLayout(side);
    layout->addLayout(top, 1);

    auto *form = new QFormLayout;
    m_url = new QLineEdit(this);
    m_url->setPlaceholderText(QStringLiteral("http://receiver.example:9101"));
    m_url->setAccessibleName(tr("Endpoint URL"));
    m_token = new QLineEdit(this);
    m_token->setEchoMode(QLineEdit::PasswordEchoOnEdit);
    m_token->setPlaceholderText(tr("none"));
    m_token->setAccessibleName(tr("Endpoint token"));
    m_caFile = new QLineEdit(this);
    m_caFile->setPlaceholderText(tr("system certificates"));
    m_caFile->setAccessibleName(tr("CA certificate file"));
    m_caFile->setToolTip(tr("https only: a PEM file of CA certificates to trust besides the system's "
                            "(for a receiver with a certificate from your own CA)"));
    m_pin = new QLineEdit(this);
    m_pin->setPlaceholderText(tr("none"));
    m_pin->setAccessibleName(tr("Certificate SHA-256 pin"));
    m_pin->setToolTip(tr("https only: accept exactly the certificate with this SHA-256 (64 hex digits, as "
                         "multilane-receiver prints after 'certificate sha256'), even self-signed"));
    m_weight = new QSpinBox(this);
    m_weight->setRange(1, 1000);
    m_weight->setAccessibleName(tr("Endpoint weight"));
    m_weight->setToolTip(tr("Share of chunks relative to the other endpoints"));
    m_maxConnections = new QSpinBox(this);
    // 0 is automatic: as many as the receiver allows one client and the link needs.
    m_maxConnections->setRange(0, 256);
    m_maxConnections->setSpecialValueText(tr("auto"));
    m_maxConnections->setAccessibleName(tr("Maximum connections"));
    m_maxConnections->setToolTip(
        tr("auto: as many as the receiver allows and the link needs; a number caps them"));
    m_enabled = new QCheckBox(tr("Use this endpoint"), this);
    m_enabled->setAccessibleName(tr("Endpoint enabled"));
    auto *numbers = new QHBoxLayout;
    numbers->addWidget(m_weight);
    numbers->addWidget(new QLabel(tr("Max connections:"), this));
    numbers->addWidget(m_maxConnections);
    numbers->addStretch();
    numbers->addWidget(m_enabled);
    form->addRow(tr("U&RL:"), m_url);
    form->addRow(tr("T&oken:"), m_token);
    form->addRow(tr("&CA file:"), m_caFile);
    form->addRow(tr("&Pin (SHA-256):"), m_pin);
    auto *weightLabel = new QLabel(tr("&Weight:"), this);
    weightLabel->setBuddy(m_weight);
    form->addRow(weightLabel, numbers);
    layout->addLayout(form);
    for (QLineEdit *field : {m_url, m_token, m_caFile, m_pin})
        connect(field, &QLineEdit::textEdited, this, &EndpointsDialog::storeField);
    for (QSpinBox *field : {m_weight, m_maxConnections})
        connect(field, &QSpinBox::valueChanged, this, &EndpointsDialog::storeField);
    connect(m_enabled, &QCheckBox::toggled, this, &EndpointsDialog::storeField);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (const std::optional<QString> problem = validate()) {
            QMessageBox::warning(this, tr("Endpoints"), *problem);
            return;
        }
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    if (m_locked) {
        for (QPushButton *b : std::as_const(m_editButtons))
            b->setEnabled(false);
        for (QWidget *w : std::initializer_list<QWidget *>{m_url, m_token, m_caFile, m_pin, m_weight,
                                                           m_maxConnections, m_enabled}) {
            w->setEnabled(false);
            w->setToolTip(tr("Managed by %1").arg(managedBy));
        }
    }
    buildTable();
    selectRow(m_entries.isEmpty() ? -1 : 0);
    resize(820, 420);
}

EndpointsDialog::~EndpointsDialog() = default;

int EndpointsDialog::currentRow() const
{
    const QList<QTableWidgetSelectionRange> ranges = m_table->selectedRanges();
    return ranges.isEmpty() ? -1 : ranges.first().topRow();
}

void EndpointsDialog::selectRow(int row)
{
    m_table->clearSelection();
    if (row >= 0 && row < m_table->rowCount())
        m_table->selectRow(row);
    showCurrent();
}

void EndpointsDialog::buildTable()
{
    m_table->setRowCount(int(m_entries.size()));
    for (int row = 0; row < m_table->rowCount(); ++row)
        refreshRow(row);
}

void EndpointsDialog::refreshRow(int row)
{
    const EndpointEntry &entry = m_entries.at(row);
    auto set = [&](int column, const QString &text) {
        QTableWidgetItem *item = m_table->item(row, column);
        if (!item) {
            item = new QTableWidgetItem;
            m_table->setItem(row, column, item);
        }
        item->setText(text);
        return item;
    };
    set(EnabledColumn, entry.enabled ? tr("yes") : tr("no"));
    set(UrlColumn, urlCell(row))->setToolTip(m_notes.value(row).urlProblem);
    set(WeightColumn, QString::number(entry.endpoint.weight));
    set(ConnectionsColumn,
        entry.endpoint.maxConnections > 0 ? QString::number(entry.endpoint.maxConnections) : tr("auto"));
    set(TestColumn, m_notes.value(row).test)->setToolTip(m_notes.value(row).test);
}

void EndpointsDialog::showCurrent()
{
    const int row = currentRow();
    m_loadingFields = true;
    const EndpointEntry entry = row >= 0 ? m_entries.at(row) : EndpointEntry{};
    const QString typed = m_notes.value(row).typed;
    m_url->setText(row < 0 ? QString() : !typed.isEmpty() ? typed : entry.endpoint.url.toString());
    m_token->setText(QString::fromUtf8(entry.endpoint.token));
    m_caFile->setText(entry.endpoint.caFile);
    const QByteArray &pin = entry.endpoint.pinSha256; // 32 bytes, or what was typed (not valid yet)
    m_pin->setText(QString::fromLatin1(pin.size() == 32 ? pin.toHex() : pin));
    m_weight->setValue(entry.endpoint.weight);
    m_maxConnections->setValue(entry.endpoint.maxConnections);
    m_enabled->setChecked(entry.enabled);
    m_loadingFields = false;
    const bool editable = row >= 0 && !m_locked;
    for (QWidget *w : std::initializer_list<QWidget *>{m_url, m_token, m_caFile, m_pin, m_weight,
                                                       m_maxConnections, m_enabled})
        w->setEnabled(editable);
}

void EndpointsDialog::storeField()
{
    const int row = currentRow();
    if (m_loadingFields || m_locked || row < 0)
        return;
    EndpointEntry &entry = m_entries[row];
    storeUrl(row, m_url->text());
    entry.endpoint.token = m_token->text().toUtf8();
    // Kept as typed; validate() reads the CA file and checks the pin on OK.
    entry.endpoint.caFile = m_caFile->text().trimmed();
    entry.endpoint.caCertificates.clear();
    const Parsed<QByteArray> pin = EndpointParser::pinFromHex(m_pin->text());
    entry.endpoint.pinSha256 = pin.value ? *pin.value : m_pin->text().trimmed().toLatin1();
    entry.endpoint.weight = m_weight->value();
    entry.endpoint.maxConnections = m_maxConnections->value();
    entry.enabled = m_enabled->isChecked();
    m_notes[row].test.clear();
    refreshRow(row);
}

void EndpointsDialog::storeUrl(int row, const QString &typed)
{
    RowNotes &notes = m_notes[row];
    const Parsed<Endpoint> parsed = EndpointParser::fromUrl(typed);
    if (parsed.value) {
        // "127.0.0.1:9101" is what the README calls an endpoint: it is sent to as http://.
        m_entries[row].endpoint.url = parsed.value->url;
        notes.typed.clear();
        notes.urlProblem.clear();
    } else {
        // Kept as typed (OK refuses it, saying why), so a half-typed URL is not thrown away.
        m_entries[row].endpoint.url = QUrl();
        notes.typed = typed.trimmed().isEmpty() ? QStringLiteral(" ") : typed;
        notes.urlProblem = parsed.error;
    }
}

QString EndpointsDialog::urlCell(int row) const
{
    const RowNotes notes = m_notes.value(row);
    if (!notes.typed.isEmpty())
        return tr("%1 (not a URL yet)").arg(notes.typed.trimmed());
    return m_entries.value(row).endpoint.url.toString();
}

void EndpointsDialog::addEndpoint()
{
    if (m_locked)
        return;
    m_entries.append(EndpointEntry{});
    m_entries.last().endpoint.url = QUrl(QStringLiteral("http://localhost:9101"));
    m_notes.append(RowNotes{});
    buildTable();
    selectRow(int(m_entries.size()) - 1);
    m_url->setFocus();
    m_url->selectAll();
}

void EndpointsDialog::removeCurrent()
{
    const int row = currentRow();
    if (m_locked || row < 0)
        return;
    m_entries.removeAt(row);
    m_notes.removeAt(row);
    buildTable();
    selectRow(std::min(row, int(m_entries.size()) - 1));
}

void EndpointsDialog::moveCurrent(int delta)
{
    const int row = currentRow();
    const int target = row + delta;
    if (m_locked || row < 0 || target < 0 || target >= m_entries.size())
        return;
    m_entries.swapItemsAt(row, target);
    m_notes.swapItemsAt(row, target);
    buildTable();
    selectRow(target);
}

std::optional<QString> EndpointsDialog::importFrom(const QString &path)
{
    if (m_locked)
        return tr("The endpoint list is managed by your administrator.");
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return tr("Cannot read %1: %2").arg(path, file.errorString());
    const Parsed<QList<EndpointEntry>> parsed = SettingsJson::importEndpoints(file.readAll());
    if (!parsed.value)
        return tr("%1 is not an endpoints file: %2").arg(path, parsed.error);
    m_entries = *parsed.value;
    m_notes = QList<RowNotes>(m_entries.size());
    buildTable();
    selectRow(m_entries.isEmpty() ? -1 : 0);
    return std::nullopt;
}

std::optional<QString> EndpointsDialog::exportTo(const QString &path, bool withTokens) const
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return tr("Cannot write %1: %2").arg(path, file.errorString());
    if (withTokens)
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(SettingsJson::exportEndpoints(m_entries, withTokens));
    if (!file.commit())
        return tr("Cannot save %1: %2").arg(path, file.errorString());
    return std::nullopt;
}

void EndpointsDialog::testAll()
{
    if (m_tester->isRunning())
        return;
    // Every row, the selected one or not, enabled or not: the list is what is being checked.
    QList<Endpoint> endpoints;
    m_testedRows.clear();
    for (int row = 0; row < int(m_entries.size()); ++row) {
        if (!m_notes.at(row).typed.isEmpty()) {
            m_notes[row].test = m_notes.at(row).urlProblem; // nothing to send to
            refreshRow(row);
            continue;
        }
        endpoints.append(m_entries.at(row).endpoint);
        m_testedRows.append(row);
    }
    if (endpoints.isEmpty()) {
        finishTest();
        return;
    }
    m_testButton->setEnabled(false);
    m_tester->start(endpoints);
}

void EndpointsDialog::finishTest()
{
    m_testButton->setEnabled(true);
    Q_EMIT testFinished();
}

QString EndpointsDialog::testResult(int row) const
{
    return m_notes.value(row).test;
}

std::optional<QString> EndpointsDialog::validate()
{
    for (qsizetype i = 0; i < m_entries.size(); ++i) {
        const QString typed = m_notes.value(i).typed;
        const Parsed<Endpoint> parsed =
            EndpointParser::fromUrl(typed.isEmpty() ? m_entries.at(i).endpoint.url.toString() : typed);
        if (!parsed.value) {
            selectRow(int(i));
            return tr("Endpoint %1: %2").arg(i + 1).arg(parsed.error);
        }
        Endpoint &endpoint = m_entries[i].endpoint;
        endpoint.url = parsed.value->url;
        const auto problem = [this, i](const QString &what) {
            selectRow(int(i));
            return tr("Endpoint %1: %2").arg(i + 1).arg(what);
        };
        const bool https = endpoint.url.scheme() == QLatin1String("https");
        if (!https && (!endpoint.caFile.isEmpty() || !endpoint.pinSha256.isEmpty()))
            return problem(tr("a CA file and a pin only apply to https:// endpoints"));
        if (!endpoint.pinSha256.isEmpty() && endpoint.pinSha256.size() != 32) {
            const Parsed<QByteArray> pin =
                EndpointParser::pinFromHex(QString::fromLatin1(endpoint.pinSha256));
            if (!pin.value)
                return problem(pin.error);
            endpoint.pinSha256 = *pin.value;
        }
        if (!endpoint.caFile.isEmpty()) {
            if (const std::optional<QString> unreadable =
                    EndpointParser::loadCaFile(endpoint, endpoint.caFile))
                return problem(*unreadable);
        }
    }
    return std::nullopt;
}

} // namespace multilane
