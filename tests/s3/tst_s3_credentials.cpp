// Where S3 keys and settings come from, in aws-cli's order, with a home folder and environment
// of the test's own (never the user's ~/.aws).
#include "AwsConfigFile.h"
#include "S3CredentialsLoader.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

namespace {

const QString Secret = QStringLiteral("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");

} // namespace

class TestS3Credentials : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_home;
    QProcessEnvironment m_env;

    void writeAws(const char *name, const QByteArray &text)
    {
        QDir(m_home.path()).mkpath(QStringLiteral(".aws"));
        QFile file(m_home.filePath(QStringLiteral(".aws/") + QLatin1String(name)));
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(text);
    }
    S3Result<S3ClientSettings> load(const QString &profile = {})
    {
        return S3CredentialsLoader(m_env, m_home.path()).load(profile);
    }
    void setEnv(const char *name, const QString &value) { m_env.insert(QLatin1String(name), value); }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_home.isValid());
        QDir(m_home.filePath(QStringLiteral(".aws"))).removeRecursively();
        m_env = QProcessEnvironment();
    }

    void environmentKeys()
    {
        setEnv("AWS_ACCESS_KEY_ID", QStringLiteral("AKIAENV"));
        setEnv("AWS_SECRET_ACCESS_KEY", Secret);
        setEnv("AWS_SESSION_TOKEN", QStringLiteral("token-1"));
        const auto settings = load();
        QVERIFY(settings);
        QCOMPARE(settings.value().credentials.accessKeyId, QStringLiteral("AKIAENV"));
        QCOMPARE(settings.value().credentials.secretAccessKey, Secret);
        QCOMPARE(settings.value().credentials.sessionToken, QStringLiteral("token-1"));
        QVERIFY(settings.value().credentials.source.contains(QLatin1String("environment")));
        QCOMPARE(settings.value().region, QStringLiteral("us-east-1"));
        QCOMPARE(settings.value().profile, QString());
    }

    void environmentKeyWithoutSecretIsRefused()
    {
        setEnv("AWS_ACCESS_KEY_ID", QStringLiteral("AKIAENV"));
        const auto settings = load();
        QVERIFY(!settings);
        QCOMPARE(settings.failure().kind, S3Failure::Kind::InvalidInput);
        QVERIFY(settings.failure().userMessage.contains(QLatin1String("AWS_SECRET_ACCESS_KEY")));
    }

    void defaultProfileFromCredentialsFile()
    {
        writeAws("credentials", "# made by aws configure\r\n[default]\r\naws_access_key_id = AKIADEF\r\n"
                                "aws_secret_access_key = " +
                                    Secret.toUtf8() + "\r\n");
        const auto settings = load();
        QVERIFY(settings);
        QCOMPARE(settings.value().credentials.accessKeyId, QStringLiteral("AKIADEF"));
        QCOMPARE(settings.value().credentials.secretAccessKey, Secret);
        QCOMPARE(settings.value().profile, QStringLiteral("default"));
        QVERIFY(settings.value().credentials.source.contains(QLatin1String("profile 'default'")));
    }

    void awsProfileSelectsSectionAndItsRegion()
    {
        writeAws("credentials", "[default]\naws_access_key_id=AKIADEF\naws_secret_access_key=x\n"
                                "[work]\naws_access_key_id=AKIAWORK\naws_secret_access_key=y\n");
        writeAws("config", "[default]\nregion=us-west-2\n[profile work]\nregion = eu-central-1\n");
        setEnv("AWS_PROFILE", QStringLiteral("work"));
        auto settings = load();
        QVERIFY(settings);
        QCOMPARE(settings.value().credentials.accessKeyId, QStringLiteral("AKIAWORK"));
        QCOMPARE(settings.value().region, QStringLiteral("eu-central-1"));
        // Without AWS_PROFILE, [default] and its region.
        m_env.remove(QStringLiteral("AWS_PROFILE"));
        settings = load();
        QVERIFY(settings);
        QCOMPARE(settings.value().credentials.accessKeyId, QStringLiteral("AKIADEF"));
        QCOMPARE(settings.value().region, QStringLiteral("us-west-2"));
    }

    void environmentKeysWinOverAwsProfileButNotOverAnExplicitProfile()
    {
        writeAws("credentials", "[work]\naws_access_key_id=AKIAWORK\naws_secret_access_key=y\n");
        setEnv("AWS_ACCESS_KEY_ID", QStringLiteral("AKIAENV"));
        setEnv("AWS_SECRET_ACCESS_KEY", Secret);
        setEnv("AWS_PROFILE", QStringLiteral("work"));
        QCOMPARE(load().value().credentials.accessKeyId, QStringLiteral("AKIAENV"));
        QCOMPARE(load(QStringLiteral("work")).value().credentials.accessKeyId, QStringLiteral("AKIAWORK"));
    }

    void keysInConfigFileOnly()
    {
        writeAws("config",
                 "[profile ceph]\naws_access_key_id = AKIACEPH\naws_secret_access_key = z\n"
                 "aws_session_token = tok\nendpoint_url = http://gw1:7480\n"
                 "s3 =\n  addressing_style = path\n  max_concurrent_requests = 20\nregion = zone-a\n");
        const auto settings = load(QStringLiteral("ceph"));
        QVERIFY2(settings, qPrintable(settings ? QString() : settings.failure().userMessage));
        QCOMPARE(settings.value().credentials.accessKeyId, QStringLiteral("AKIACEPH"));
        QCOMPARE(settings.value().credentials.sessionToken, QStringLiteral("tok"));
        QCOMPARE(settings.value().endpointUrl, QStringLiteral("http://gw1:7480"));
        QCOMPARE(settings.value().addressingStyle, QStringLiteral("path"));
        // The nested block ended at "region": it is the profile's own key.
        QCOMPARE(settings.value().region, QStringLiteral("zone-a"));
    }

    void filesFromEnvironmentPaths()
    {
        QDir(m_home.path()).mkpath(QStringLiteral("elsewhere"));
        QFile credentials(m_home.filePath(QStringLiteral("elsewhere/creds")));
        QVERIFY(credentials.open(QIODevice::WriteOnly));
        credentials.write("[default]\naws_access_key_id=AKIAOTHER\naws_secret_access_key=s\n");
        credentials.close();
        QFile config(m_home.filePath(QStringLiteral("elsewhere/conf")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write("[default]\nregion=ap-south-1\n");
        config.close();
        writeAws("credentials", "[default]\naws_access_key_id=AKIAHOME\naws_secret_access_key=s\n");
        setEnv("AWS_SHARED_CREDENTIALS_FILE", QStringLiteral("~/elsewhere/creds"));
        setEnv("AWS_CONFIG_FILE", config.fileName());
        const auto settings = load();
        QVERIFY(settings);
        QCOMPARE(settings.value().credentials.accessKeyId, QStringLiteral("AKIAOTHER"));
        QCOMPARE(settings.value().region, QStringLiteral("ap-south-1"));
    }

    void regionPrecedence()
    {
        writeAws("credentials", "[default]\naws_access_key_id=A\naws_secret_access_key=s\n");
        writeAws("config", "[default]\nregion=from-profile\n");
        setEnv("AWS_DEFAULT_REGION", QStringLiteral("from-default-region"));
        QCOMPARE(load().value().region, QStringLiteral("from-default-region"));
        setEnv("AWS_REGION", QStringLiteral("from-region"));
        QCOMPARE(load().value().region, QStringLiteral("from-region"));
    }

    void nothingFoundSaysWhatToSet()
    {
        const auto settings = load();
        QVERIFY(!settings);
        const QString message = settings.failure().userMessage;
        QVERIFY2(message.contains(QLatin1String("AWS_ACCESS_KEY_ID")) &&
                     message.contains(QLatin1String("AWS_SECRET_ACCESS_KEY")) &&
                     message.contains(QLatin1String("AWS_PROFILE")) &&
                     message.contains(QLatin1String(".aws/credentials")),
                 qPrintable(message));
    }

    void namedProfileMissing()
    {
        writeAws("credentials", "[default]\naws_access_key_id=A\naws_secret_access_key=s\n");
        setEnv("AWS_PROFILE", QStringLiteral("nope"));
        const auto settings = load();
        QVERIFY(!settings);
        QVERIFY(settings.failure().userMessage.contains(QLatin1String("no profile 'nope'")));
    }

    void profileWithoutSecretOrWithRoleIsExplained()
    {
        writeAws("credentials", "[half]\naws_access_key_id=AKIAHALF\n");
        writeAws("config", "[profile role]\nrole_arn=arn:aws:iam::1:role/x\nsource_profile=half\n");
        auto settings = load(QStringLiteral("half"));
        QVERIFY(!settings);
        QVERIFY(settings.failure().userMessage.contains(QLatin1String("no aws_secret_access_key")));
        settings = load(QStringLiteral("role"));
        QVERIFY(!settings);
        QVERIFY2(settings.failure().userMessage.contains(QLatin1String("role_arn")) &&
                     settings.failure().userMessage.contains(QLatin1String("export-credentials")),
                 qPrintable(settings.failure().userMessage));
    }

    void caBundleHonouredAndChecked()
    {
        setEnv("AWS_ACCESS_KEY_ID", QStringLiteral("A"));
        setEnv("AWS_SECRET_ACCESS_KEY", Secret);
        QFile bundle(m_home.filePath(QStringLiteral("ca.pem")));
        QVERIFY(bundle.open(QIODevice::WriteOnly));
        bundle.write("-----BEGIN CERTIFICATE-----\n");
        bundle.close();
        setEnv("AWS_CA_BUNDLE", QStringLiteral("~/ca.pem"));
        auto settings = load();
        QVERIFY(settings);
        QCOMPARE(settings.value().caBundle, bundle.fileName());
        setEnv("AWS_CA_BUNDLE", m_home.filePath(QStringLiteral("missing.pem")));
        settings = load();
        QVERIFY(!settings);
        QVERIFY(settings.failure().userMessage.contains(QLatin1String("missing.pem")));
        // A failure never repeats the secret.
        QVERIFY(!settings.failure().userMessage.contains(Secret));
    }

    void iniParserKeepsSectionsApart()
    {
        const AwsConfigFile file = AwsConfigFile::fromText(QStringLiteral(
            "key_before_any_section = x\n[a]\n; comment\nK = 1\n[ b ]\nk=2=3\nnot a pair\n[empty]\n"));
        QCOMPARE(file.section(QStringLiteral("a")).value(QStringLiteral("k")), QStringLiteral("1"));
        QCOMPARE(file.section(QStringLiteral("b")).value(QStringLiteral("k")), QStringLiteral("2=3"));
        QVERIFY(file.hasSection(QStringLiteral("empty")));
        QVERIFY(!file.hasSection(QStringLiteral("missing")));
    }
};

QTEST_GUILESS_MAIN(TestS3Credentials)
#include "tst_s3_credentials.moc"
