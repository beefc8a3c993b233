#pragma once

#include "S3Credentials.h"
#include "S3Result.h"

#include <QProcessEnvironment>
#include <QString>

namespace multilane {

// Everything an S3 user's usual configuration says about how to reach S3.
struct S3ClientSettings {
    S3Credentials credentials;
    QString region;          // never empty: us-east-1 when nothing says otherwise
    QString caBundle;        // extra CA file for https (AWS_CA_BUNDLE, the profile's ca_bundle)
    QString endpointUrl;     // AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or the profile's endpoint_url
    QString addressingStyle; // the profile's "s3 = addressing_style = path|virtual|auto"
    QString profile;         // the profile that was read ("" when the keys came from the environment)
};

// Finds credentials and settings the way aws-cli does: a profile named by the caller wins; then
// AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN; then the profile AWS_PROFILE names
// (or "default") in AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials), then in AWS_CONFIG_FILE
// (~/.aws/config). Region: AWS_REGION, AWS_DEFAULT_REGION, the profile's region, us-east-1.
// The environment and home folder are passed in, so tests never read the user's files.
class S3CredentialsLoader {
public:
    S3CredentialsLoader(QProcessEnvironment environment, QString homeDir);
    static S3CredentialsLoader forThisUser();

    // A failure (kind InvalidInput) says what was looked at and what to set.
    S3Result<S3ClientSettings> load(const QString &explicitProfile = {}) const;

private:
    QString path(const char *variable, const QString &fallback) const;
    QString env(const char *name) const;

    QProcessEnvironment m_environment;
    QString m_homeDir;
};

} // namespace multilane
