#pragma once

#include "S3TargetSettings.h"

#include <QDialog>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QRadioButton;

namespace multilane {

class SettingsStore;
class TokenStore;

// Settings → S3 target: send the window's uploads to an S3 bucket (AWS S3, Ceph RGW, MinIO) over
// one or more gateways instead of the receivers. Keys come from an AWS profile (as aws-cli finds
// them) or an access key whose secret goes to the TokenStore (the desktop keyring). Saving
// checks the bucket URL and gateways; the keys are checked by the gateways when an upload starts.
class S3TargetDialog : public QDialog {
    Q_OBJECT
public:
    S3TargetDialog(SettingsStore &store, TokenStore &tokens, QWidget *parent = nullptr);

    // What the fields say; nullopt with problem() set when they cannot be used.
    std::optional<S3TargetSettings> edited() const;
    QString problem() const;
    // Stores the fields (the secret in the TokenStore); false, with the reason shown, when they
    // cannot be used.
    bool save();

    void accept() override;

private:
    void load(const S3TargetSettings &settings);
    void updateEnabled();

    SettingsStore &m_store;
    TokenStore &m_tokens;
    QCheckBox *m_enabled;
    QLineEdit *m_url;
    QPlainTextEdit *m_gateways;
    QLineEdit *m_region;
    QComboBox *m_addressing;
    QRadioButton *m_useProfile;
    QRadioButton *m_useKey;
    QLineEdit *m_profile;
    QLineEdit *m_accessKeyId;
    QLineEdit *m_secret;
    QLabel *m_keyringNote;
    QLabel *m_problem;
    mutable QString m_problemText;
};

} // namespace multilane
