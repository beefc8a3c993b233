#include "S3TargetDialog.h"

#include "S3RunSetup.h"
#include "SettingsStore.h"
#include "TokenStore.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRadioButton>
#include <QVBoxLayout>

namespace multilane {

S3TargetDialog::S3TargetDialog(SettingsStore &store, TokenStore &tokens, QWidget *parent)
    : QDialog(parent)
    , m_store(store)
    , m_tokens(tokens)
{
    setWindowTitle(tr("S3 Target"));
    auto *layout = new QVBoxLayout(this);
    m_enabled = new QCheckBox(tr("&Send uploads to this S3 bucket instead of the receivers"), this);
    layout->addWidget(m_enabled);

    auto *where = new QGroupBox(tr("Bucket"), this);
    auto *form = new QFormLayout(where);
    m_url = new QLineEdit(where);
    m_url->setPlaceholderText(QStringLiteral("s3://bucket/folder/"));
    m_url->setAccessibleName(tr("Bucket URL"));
    form->addRow(tr("&Bucket URL:"), m_url);
    m_gateways = new QPlainTextEdit(where);
    m_gateways->setPlaceholderText(tr("One gateway per line, e.g. https://gw1:7480 (Ceph RGW, MinIO).\n"
                                      "Empty: AWS S3 (or the profile's endpoint_url)."));
    m_gateways->setAccessibleName(tr("Gateways"));
    m_gateways->setToolTip(tr("The parts of each file are spread over every gateway listed."));
    form->addRow(tr("&Gateways:"), m_gateways);
    m_region = new QLineEdit(where);
    m_region->setPlaceholderText(tr("from the AWS configuration, else us-east-1"));
    m_region->setAccessibleName(tr("Region"));
    form->addRow(tr("&Region:"), m_region);
    m_addressing = new QComboBox(where);
    m_addressing->addItem(tr("Automatic (virtual host on AWS, path elsewhere)"), int(S3Addressing::Auto));
    m_addressing->addItem(tr("Path style (gateway/bucket/key)"), int(S3Addressing::Path));
    m_addressing->addItem(tr("Virtual host (bucket.gateway/key)"), int(S3Addressing::VirtualHost));
    m_addressing->setAccessibleName(tr("Addressing"));
    form->addRow(tr("&Addressing:"), m_addressing);
    layout->addWidget(where);

    auto *keys = new QGroupBox(tr("Keys"), this);
    auto *keyForm = new QFormLayout(keys);
    m_useProfile = new QRadioButton(tr("AWS &profile (~/.aws/credentials, or the environment)"), keys);
    m_profile = new QLineEdit(keys);
    m_profile->setPlaceholderText(tr("default"));
    m_profile->setAccessibleName(tr("Profile"));
    keyForm->addRow(m_useProfile);
    keyForm->addRow(tr("Pro&file name:"), m_profile);
    m_useKey = new QRadioButton(tr("Access &key kept in the keyring"), keys);
    m_accessKeyId = new QLineEdit(keys);
    m_accessKeyId->setAccessibleName(tr("Access key ID"));
    m_secret = new QLineEdit(keys);
    m_secret->setEchoMode(QLineEdit::Password);
    m_secret->setAccessibleName(tr("Secret access key"));
    keyForm->addRow(m_useKey);
    keyForm->addRow(tr("Access key &ID:"), m_accessKeyId);
    keyForm->addRow(tr("&Secret:"), m_secret);
    m_keyringNote = new QLabel(tr("The secret is kept in %1.").arg(tokens.description()), keys);
    m_keyringNote->setWordWrap(true);
    keyForm->addRow(m_keyringNote);
    layout->addWidget(keys);
    connect(m_useProfile, &QRadioButton::toggled, this, &S3TargetDialog::updateEnabled);
    connect(m_enabled, &QCheckBox::toggled, this, &S3TargetDialog::updateEnabled);

    m_problem = new QLabel(this);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #b00020"));
    m_problem->hide();
    layout->addWidget(m_problem);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &S3TargetDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &S3TargetDialog::reject);
    layout->addWidget(buttons);

    load(store.values().s3);
    if (store.isLocked(SettingKeys::s3())) {
        for (QWidget *widget : {static_cast<QWidget *>(where), static_cast<QWidget *>(keys),
                                static_cast<QWidget *>(m_enabled)}) {
            widget->setEnabled(false);
            widget->setToolTip(tr("Managed by %1").arg(store.managedBy()));
        }
    }
}

void S3TargetDialog::load(const S3TargetSettings &settings)
{
    m_enabled->setChecked(settings.enabled);
    m_url->setText(settings.target.url);
    QStringList gateways;
    for (const QUrl &gateway : settings.gateways)
        gateways.append(gateway.toString());
    m_gateways->setPlainText(gateways.join(QLatin1Char('\n')));
    m_region->setText(settings.target.region);
    m_addressing->setCurrentIndex(m_addressing->findData(int(settings.target.addressing)));
    m_profile->setText(settings.target.profile);
    m_accessKeyId->setText(settings.accessKeyId);
    m_secret->setText(settings.secretAccessKey);
    (settings.accessKeyId.isEmpty() ? m_useProfile : m_useKey)->setChecked(true);
    updateEnabled();
}

void S3TargetDialog::updateEnabled()
{
    const bool profile = m_useProfile->isChecked();
    m_profile->setEnabled(profile);
    m_accessKeyId->setEnabled(!profile);
    m_secret->setEnabled(!profile);
}

QString S3TargetDialog::problem() const
{
    return m_problemText;
}

std::optional<S3TargetSettings> S3TargetDialog::edited() const
{
    S3TargetSettings settings = m_store.values().s3;
    settings.enabled = m_enabled->isChecked();
    const bool byKey = m_useKey->isChecked();
    settings.target = {m_url->text().trimmed(), m_region->text().trimmed(),
                       S3Addressing(m_addressing->currentData().toInt()),
                       byKey ? QString() : m_profile->text().trimmed()};
    settings.accessKeyId = byKey ? m_accessKeyId->text().trimmed() : QString();
    settings.secretAccessKey = byKey ? m_secret->text() : QString();
    settings.gateways.clear();
    QList<Endpoint> gateways;
    for (const QString &line : m_gateways->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        if (line.trimmed().isEmpty())
            continue;
        const Parsed<Endpoint> gateway = EndpointParser::fromUrl(line);
        if (!gateway.value) {
            m_problemText = gateway.error;
            return std::nullopt;
        }
        gateways.append(*gateway.value);
        settings.gateways.append(gateway.value->url);
    }
    // A target that is off may stay half filled in; one that is on must be usable.
    if (settings.enabled) {
        if (const auto problem = S3RunSetup::targetProblem(settings.target, gateways)) {
            m_problemText = *problem;
            return std::nullopt;
        }
        if (byKey && (settings.accessKeyId.isEmpty() || settings.secretAccessKey.isEmpty())) {
            m_problemText = tr("Enter both the access key ID and its secret, or use an AWS profile.");
            return std::nullopt;
        }
    }
    m_problemText.clear();
    return settings;
}

bool S3TargetDialog::save()
{
    const std::optional<S3TargetSettings> settings = edited();
    const S3TargetSettings &before = m_store.values().s3;
    if (settings && !settings->accessKeyId.isEmpty()) {
        if (const auto problem =
                m_tokens.write(settings->secretKeyName(), settings->secretAccessKey.toUtf8()))
            m_problemText = tr("The secret could not be stored: %1").arg(*problem);
    }
    // A key no longer used leaves the keyring with its secret.
    if (settings && !before.accessKeyId.isEmpty() && before.accessKeyId != settings->accessKeyId)
        m_tokens.write(before.secretKeyName(), {});
    m_problem->setText(m_problemText);
    m_problem->setVisible(!m_problemText.isEmpty());
    if (!settings || !m_problemText.isEmpty())
        return false;
    UserSettings values = m_store.values();
    values.s3 = *settings;
    m_store.update(values);
    return true;
}

void S3TargetDialog::accept()
{
    if (save())
        QDialog::accept();
}

} // namespace multilane
