#include "SettingsDialog.h"

#include "SettingsStore.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace multilane {

static constexpr double MB = 1e6; // SI, as everywhere in the window (Units)

static QSpinBox *spinBox(int minimum, int maximum, const QString &suffix, QWidget *parent)
{
    auto *box = new QSpinBox(parent);
    box->setRange(minimum, maximum);
    box->setSuffix(suffix);
    return box;
}

SettingsDialog::SettingsDialog(SettingsStore &store, QWidget *parent)
    : QDialog(parent)
    , m_store(store)
{
    // The desktop adds the application's name ("Settings — Multilane").
    setWindowTitle(tr("Settings"));
    auto *layout = new QVBoxLayout(this);

    m_managedNote = new QLabel(this);
    m_managedNote->setWordWrap(true);
    m_managedNote->setVisible(store.hasLockedKeys());
    m_managedNote->setText(
        tr("Some settings are managed by %1 and cannot be changed here.").arg(store.managedBy()));
    layout->addWidget(m_managedNote);

    auto *transfer = new QGroupBox(tr("Transfer"), this);
    auto *form = new QFormLayout(transfer);
    m_connections = spinBox(0, 256, QString(), transfer);
    m_connections->setSpecialValueText(tr("Automatic (measured)"));
    m_connections->setAccessibleName(tr("Connections"));
    form->addRow(tr("&Connections:"), m_connections);

    m_chunkMode = new QComboBox(transfer);
    m_chunkMode->addItem(tr("Automatic"));
    m_chunkMode->addItem(tr("Fixed"));
    m_chunkMode->setAccessibleName(tr("Chunk size mode"));
    m_chunkMode->setToolTip(tr("Automatic sizes each file's chunks for the measured link and the number of "
                               "connections, so every connection has work to the end."));
    m_chunkSize = new QDoubleSpinBox(transfer);
    m_chunkSize->setRange(double(ChunkPlanner::MinChunkSize) / MB, double(ChunkPlanner::MaxChunkSize) / MB);
    m_chunkSize->setDecimals(1);
    m_chunkSize->setSuffix(tr(" MB"));
    m_chunkSize->setAccessibleName(tr("Fixed chunk size"));
    m_chunkAutoNote = new QLabel(tr("picked per file; the status bar shows the sizes in use"), transfer);
    m_chunkAutoNote->setEnabled(false); // a note, not a value
    auto *chunkRow = new QHBoxLayout;
    chunkRow->addWidget(m_chunkMode);
    chunkRow->addWidget(m_chunkSize, 1);
    chunkRow->addWidget(m_chunkAutoNote, 1);
    auto *chunkLabel = new QLabel(tr("C&hunk size:"), transfer);
    chunkLabel->setBuddy(m_chunkMode);
    form->addRow(chunkLabel, chunkRow);
    connect(m_chunkMode, &QComboBox::currentIndexChanged, this, &SettingsDialog::updateEnabled);

    m_speedLimit = new QDoubleSpinBox(transfer);
    m_speedLimit->setRange(0, 100000);
    m_speedLimit->setDecimals(1);
    m_speedLimit->setSingleStep(0.5);
    m_speedLimit->setSuffix(tr(" MB/s"));
    m_speedLimit->setSpecialValueText(tr("Unlimited"));
    m_speedLimit->setAccessibleName(tr("Upload speed limit"));
    m_speedLimit->setToolTip(
        tr("Leave bandwidth for others: uploads started after the change stay under this "
           "rate."));
    form->addRow(tr("Speed &limit:"), m_speedLimit);

    m_onConflict = new QComboBox(transfer);
    m_onConflict->addItem(tr("Keep both (rename the new file)"), int(ConflictPolicy::Rename));
    m_onConflict->addItem(tr("Overwrite"), int(ConflictPolicy::Overwrite));
    m_onConflict->addItem(tr("Skip the file"), int(ConflictPolicy::Skip));
    m_onConflict->addItem(tr("Fail the file"), int(ConflictPolicy::Fail));
    m_onConflict->setAccessibleName(tr("When a file exists"));
    form->addRow(tr("When a file &exists:"), m_onConflict);

    m_destination = new QLineEdit(transfer);
    m_destination->setPlaceholderText(tr("top of the receiver's storage folder"));
    m_destination->setAccessibleName(tr("Destination folder"));
    form->addRow(tr("&Destination folder:"), m_destination);
    layout->addWidget(transfer);

    auto *retries = new QGroupBox(tr("Retries"), this);
    auto *retryForm = new QFormLayout(retries);
    m_maxAttempts = spinBox(1, 100, QString(), retries);
    m_maxAttempts->setAccessibleName(tr("Attempts per chunk"));
    retryForm->addRow(tr("&Attempts per chunk:"), m_maxAttempts);
    m_retryDelay = spinBox(0, 60000, tr(" ms"), retries);
    m_retryDelay->setSingleStep(100);
    m_retryDelay->setAccessibleName(tr("First retry delay"));
    m_retryDelay->setToolTip(tr("Doubled after each failed attempt, with jitter."));
    retryForm->addRow(tr("&First retry after:"), m_retryDelay);
    layout->addWidget(retries);

    auto *behaviour = new QGroupBox(tr("Behaviour"), this);
    auto *checks = new QVBoxLayout(behaviour);
    m_startOnDrop = new QCheckBox(tr("&Start uploading as soon as files are added"), behaviour);
    m_notifyFinish = new QCheckBox(tr("&Notify when a batch finishes"), behaviour);
    m_notifyFailure = new QCheckBox(tr("Notify when a file &fails"), behaviour);
    checks->addWidget(m_startOnDrop);
    checks->addWidget(m_notifyFinish);
    checks->addWidget(m_notifyFailure);
    layout->addWidget(behaviour);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    QPushButton *endpoints = buttons->addButton(tr("E&ndpoints…"), QDialogButtonBox::ActionRole);
    connect(endpoints, &QPushButton::clicked, this, &SettingsDialog::endpointsRequested);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        apply();
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    load(store.values());
    lock(SettingKeys::connections(), {m_connections});
    lock(SettingKeys::chunkSize(), {m_chunkMode, m_chunkSize});
    lock(SettingKeys::speedLimit(), {m_speedLimit});
    lock(SettingKeys::onConflict(), {m_onConflict});
    lock(SettingKeys::destination(), {m_destination});
    lock(SettingKeys::maxAttempts(), {m_maxAttempts});
    lock(SettingKeys::retryBaseDelayMs(), {m_retryDelay});
    lock(SettingKeys::startOnDrop(), {m_startOnDrop});
    lock(SettingKeys::notifyOnFinish(), {m_notifyFinish});
    lock(SettingKeys::notifyOnFailure(), {m_notifyFailure});
    updateEnabled();
}

void SettingsDialog::load(const UserSettings &v)
{
    m_connections->setValue(v.connections);
    m_chunkMode->setCurrentIndex(v.chunkSizeAuto ? 0 : 1);
    m_chunkSize->setValue(double(v.chunkSize) / MB);
    m_loadedChunkMb = m_chunkSize->value();
    m_speedLimit->setValue(double(v.speedLimitBytesPerSecond) / MB);
    m_loadedLimitMbps = m_speedLimit->value();
    m_onConflict->setCurrentIndex(m_onConflict->findData(int(v.onConflict)));
    m_destination->setText(v.destination);
    m_maxAttempts->setValue(v.maxAttempts);
    m_retryDelay->setValue(v.retryBaseDelayMs);
    m_startOnDrop->setChecked(v.startOnDrop);
    m_notifyFinish->setChecked(v.notifyOnFinish);
    m_notifyFailure->setChecked(v.notifyOnFailure);
}

void SettingsDialog::lock(const QString &key, const QList<QWidget *> &widgets)
{
    if (!m_store.isLocked(key))
        return;
    for (QWidget *widget : widgets) {
        widget->setEnabled(false);
        widget->setToolTip(tr("Managed by %1").arg(m_store.managedBy()));
        widget->setProperty("locked", true);
    }
}

void SettingsDialog::updateEnabled()
{
    const bool fixed = m_chunkMode->currentIndex() == 1;
    m_chunkSize->setVisible(fixed);
    m_chunkAutoNote->setVisible(!fixed);
    if (!m_chunkSize->property("locked").toBool())
        m_chunkSize->setEnabled(fixed);
}

UserSettings SettingsDialog::editedValues() const
{
    UserSettings v = m_store.values();
    v.connections = m_connections->value();
    v.chunkSizeAuto = m_chunkMode->currentIndex() == 0;
    if (m_chunkSize->value() != m_loadedChunkMb)
        v.chunkSize = qint64(m_chunkSize->value() * MB);
    if (m_speedLimit->value() != m_loadedLimitMbps)
        v.speedLimitBytesPerSecond = qint64(m_speedLimit->value() * MB);
    v.onConflict = ConflictPolicy(m_onConflict->currentData().toInt());
    v.destination = m_destination->text().trimmed();
    v.maxAttempts = m_maxAttempts->value();
    v.retryBaseDelayMs = m_retryDelay->value();
    v.startOnDrop = m_startOnDrop->isChecked();
    v.notifyOnFinish = m_notifyFinish->isChecked();
    v.notifyOnFailure = m_notifyFailure->isChecked();
    return v;
}

QStringList SettingsDialog::apply()
{
    return m_store.update(editedValues());
}

} // namespace multilane
