#include "S3CredentialsLoader.h"

#include "AwsConfigFile.h"

#include <QDir>
#include <QFileInfo>
#include <utility>

namespace multilane {

namespace {

// The keys with which a profile gets credentials through some other program or service.
constexpr const char *IndirectCredentialKeys[] = {"role_arn", "credential_process", "sso_start_url",
                                                  "sso_session", "web_identity_token_file"};

struct ProfileFiles {
    QString credentialsPath;
    QString configPath;
    AwsConfigFile credentials;
    AwsConfigFile config;

    AwsConfigFile::Section configSection(const QString &profile) const
    {
        // ~/.aws/config names profiles "[profile x]"; "[default]" stays bare.
        const QString prefixed = QStringLiteral("profile ") + profile;
        if (config.hasSection(prefixed) || profile != QLatin1String("default"))
            return config.section(prefixed);
        return config.section(profile);
    }
    bool hasProfile(const QString &profile) const
    {
        return credentials.hasSection(profile) || config.hasSection(QStringLiteral("profile ") + profile) ||
               (profile == QLatin1String("default") && config.hasSection(profile));
    }
};

QString expandHome(const QString &path, const QString &home)
{
    if (path == QLatin1String("~") || path.startsWith(QLatin1String("~/")))
        return home + path.mid(1);
    return path;
}

S3Result<S3Credentials> credentialsFromProfile(const ProfileFiles &files, const QString &profile)
{
    const AwsConfigFile::Section fromCredentials = files.credentials.section(profile);
    const bool inCredentialsFile = fromCredentials.contains(QStringLiteral("aws_access_key_id"));
    const AwsConfigFile::Section section = inCredentialsFile ? fromCredentials : files.configSection(profile);
    const QString where = inCredentialsFile ? files.credentialsPath : files.configPath;
    S3Credentials credentials;
    credentials.accessKeyId = section.value(QStringLiteral("aws_access_key_id"));
    credentials.secretAccessKey = section.value(QStringLiteral("aws_secret_access_key"));
    credentials.sessionToken = section.value(QStringLiteral("aws_session_token"),
                                             section.value(QStringLiteral("aws_security_token")));
    credentials.source = QStringLiteral("profile '%1' in %2").arg(profile, where);
    if (credentials.accessKeyId.isEmpty()) {
        for (const char *key : IndirectCredentialKeys) {
            if (files.configSection(profile).contains(QLatin1String(key)))
                return S3Failure::invalidInput(
                    QStringLiteral("profile '%1' gets its keys through %2, which Multilane cannot do: export "
                                   "them first: eval \"$(aws configure export-credentials --profile %1 "
                                   "--format env)\"")
                        .arg(profile, QLatin1String(key)));
        }
        return S3Failure::invalidInput(
            QStringLiteral("profile '%1' has no aws_access_key_id (looked in %2 and %3)")
                .arg(profile, files.credentialsPath, files.configPath));
    }
    if (credentials.secretAccessKey.isEmpty())
        return S3Failure::invalidInput(
            QStringLiteral("profile '%1' in %2 has an aws_access_key_id but no aws_secret_access_key")
                .arg(profile, where));
    return credentials;
}

S3Result<S3Credentials> credentialsFromEnvironment(const QProcessEnvironment &environment)
{
    const auto env = [&](const char *name) { return environment.value(QLatin1String(name)).trimmed(); };
    S3Credentials credentials;
    credentials.accessKeyId = env("AWS_ACCESS_KEY_ID");
    credentials.secretAccessKey = env("AWS_SECRET_ACCESS_KEY");
    credentials.sessionToken = env("AWS_SESSION_TOKEN");
    if (credentials.sessionToken.isEmpty())
        credentials.sessionToken = env("AWS_SECURITY_TOKEN"); // its older name
    credentials.source = QStringLiteral("the environment (AWS_ACCESS_KEY_ID)");
    if (credentials.secretAccessKey.isEmpty())
        return S3Failure::invalidInput(
            QStringLiteral("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not: set both"));
    return credentials;
}

QString firstGiven(std::initializer_list<QString> candidates)
{
    for (const QString &candidate : candidates) {
        if (!candidate.isEmpty())
            return candidate;
    }
    return {};
}

} // namespace

S3CredentialsLoader::S3CredentialsLoader(QProcessEnvironment environment, QString homeDir)
    : m_environment(std::move(environment))
    , m_homeDir(std::move(homeDir))
{}

S3CredentialsLoader S3CredentialsLoader::forThisUser()
{
    return S3CredentialsLoader(QProcessEnvironment::systemEnvironment(), QDir::homePath());
}

QString S3CredentialsLoader::env(const char *name) const
{
    return m_environment.value(QLatin1String(name)).trimmed();
}

QString S3CredentialsLoader::path(const char *variable, const QString &fallback) const
{
    const QString given = env(variable);
    return expandHome(given.isEmpty() ? fallback : given, m_homeDir);
}

S3Result<S3ClientSettings> S3CredentialsLoader::load(const QString &explicitProfile) const
{
    ProfileFiles files;
    files.credentialsPath =
        path("AWS_SHARED_CREDENTIALS_FILE", m_homeDir + QStringLiteral("/.aws/credentials"));
    files.configPath = path("AWS_CONFIG_FILE", m_homeDir + QStringLiteral("/.aws/config"));
    for (const auto &[where, into] :
         {std::pair{files.credentialsPath, &files.credentials}, std::pair{files.configPath, &files.config}}) {
        std::optional<AwsConfigFile> read = AwsConfigFile::read(where);
        if (!read)
            return S3Failure::invalidInput(
                QStringLiteral("cannot read %1: check its permissions").arg(where));
        *into = std::move(*read);
    }
    const QString namedProfile =
        firstGiven({explicitProfile, env("AWS_PROFILE"), env("AWS_DEFAULT_PROFILE")});
    const QString profile = namedProfile.isEmpty() ? QStringLiteral("default") : namedProfile;

    S3ClientSettings settings;
    // Keys in the environment win over a profile, unless the caller named one (as aws --profile).
    const bool fromEnvironment = !env("AWS_ACCESS_KEY_ID").isEmpty() && explicitProfile.isEmpty();
    if (!fromEnvironment && !files.hasProfile(profile)) {
        if (!namedProfile.isEmpty())
            return S3Failure::invalidInput(QStringLiteral("there is no profile '%1' in %2 or %3")
                                               .arg(profile, files.credentialsPath, files.configPath));
        return S3Failure::invalidInput(
            QStringLiteral(
                "no S3 credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give "
                "%1 a [default] profile (aws configure writes one), or name a profile with "
                "AWS_PROFILE")
                .arg(files.credentialsPath));
    }
    S3Result<S3Credentials> credentials =
        fromEnvironment ? credentialsFromEnvironment(m_environment) : credentialsFromProfile(files, profile);
    if (!credentials)
        return credentials.failure();
    settings.credentials = credentials.value();
    settings.profile = fromEnvironment ? QString() : profile;

    const AwsConfigFile::Section config = files.configSection(profile);
    settings.region = firstGiven({env("AWS_REGION"), env("AWS_DEFAULT_REGION"),
                                  config.value(QStringLiteral("region")), QStringLiteral("us-east-1")});
    settings.endpointUrl = firstGiven({env("AWS_ENDPOINT_URL_S3"), env("AWS_ENDPOINT_URL"),
                                       config.value(QStringLiteral("s3.endpoint_url")),
                                       config.value(QStringLiteral("endpoint_url"))});
    settings.addressingStyle = config.value(QStringLiteral("s3.addressing_style"));
    settings.caBundle =
        expandHome(firstGiven({env("AWS_CA_BUNDLE"), config.value(QStringLiteral("ca_bundle"))}), m_homeDir);
    if (!settings.caBundle.isEmpty() && !QFileInfo(settings.caBundle).isReadable())
        return S3Failure::invalidInput(
            QStringLiteral("the CA bundle %1 (AWS_CA_BUNDLE or the profile's ca_bundle) cannot be read")
                .arg(settings.caBundle));
    return settings;
}

} // namespace multilane
