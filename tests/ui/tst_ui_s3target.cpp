// The window's S3 target: its dialog, where the secret goes, and the plans the controller makes
// of it; offscreen and without a network (tests/s3/tst_s3_cli uploads through it to Ceph).
#include "FileTokenStore.h"
#include "S3TargetDialog.h"
#include "SettingsJson.h"
#include "SettingsStore.h"
#include "TransferController.h"
#include "UploadSession.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRadioButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

namespace {

template<typename T> T *field(QWidget &dialog, const QString &accessibleName)
{
    for (T *widget : dialog.findChildren<T *>()) {
        if (widget->accessibleName() == accessibleName)
            return widget;
    }
    return nullptr;
}

QByteArray contentsOf(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestUiS3Target : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString path(const QString &name) const { return m_dir.filePath(name); }

    // Fills the dialog as a user would.
    static void fill(S3TargetDialog &dialog, const QString &url, const QString &gateways, bool byKey)
    {
        dialog.findChild<QCheckBox *>()->setChecked(true);
        field<QLineEdit>(dialog, QStringLiteral("Bucket URL"))->setText(url);
        field<QPlainTextEdit>(dialog, QStringLiteral("Gateways"))->setPlainText(gateways);
        field<QLineEdit>(dialog, QStringLiteral("Region"))->setText(QStringLiteral("eu-west-1"));
        QComboBox *addressing = field<QComboBox>(dialog, QStringLiteral("Addressing"));
        addressing->setCurrentIndex(addressing->findData(int(S3Addressing::Path)));
        const QList<QRadioButton *> choices = dialog.findChildren<QRadioButton *>();
        QCOMPARE(choices.size(), 2);
        choices.at(byKey ? 1 : 0)->setChecked(true);
        if (byKey) {
            field<QLineEdit>(dialog, QStringLiteral("Access key ID"))->setText(QStringLiteral("AKIDEXAMPLE"));
            field<QLineEdit>(dialog, QStringLiteral("Secret access key"))
                ->setText(QStringLiteral("the-secret"));
        } else {
            field<QLineEdit>(dialog, QStringLiteral("Profile"))->setText(QStringLiteral("backup"));
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    void keyGoesToTheTokenStoreNotTheSettingsFile()
    {
        const QString userFile = path(QStringLiteral("key-settings.json"));
        FileTokenStore tokens(path(QStringLiteral("key-tokens.json")));
        {
            SettingsStore store(userFile, path(QStringLiteral("none.json")));
            store.load();
            S3TargetDialog dialog(store, tokens);
            fill(dialog, QStringLiteral("s3://bucket/photos/"),
                 QStringLiteral("https://gw1:7480\nhttps://gw2:7480/\n"), true);
            QVERIFY2(dialog.save(), qPrintable(dialog.problem()));
            const S3TargetSettings &saved = store.values().s3;
            QVERIFY(saved.enabled);
            QCOMPARE(saved.target.url, QStringLiteral("s3://bucket/photos/"));
            QCOMPARE(saved.target.region, QStringLiteral("eu-west-1"));
            QCOMPARE(saved.target.addressing, S3Addressing::Path);
            QCOMPARE(saved.gateways.size(), 2);
            QCOMPARE(saved.gateways.at(0), QUrl(QStringLiteral("https://gw1:7480")));
            QCOMPARE(saved.gateways.at(1).authority(), QStringLiteral("gw2:7480"));
            QCOMPARE(saved.accessKeyId, QStringLiteral("AKIDEXAMPLE"));
            QCOMPARE(saved.secretAccessKey, QStringLiteral("the-secret"));
            QVERIFY(!store.saveNow());
        }
        QVERIFY(!contentsOf(userFile).contains("the-secret"));
        QVERIFY(contentsOf(userFile).contains("AKIDEXAMPLE"));
        QCOMPARE(tokens.read(QStringLiteral("s3:AKIDEXAMPLE")), QByteArray("the-secret"));

        // After a restart the target is back; its secret was never in the file (DesktopApp reads
        // it from the store).
        SettingsStore again(userFile, path(QStringLiteral("none.json")));
        QVERIFY(again.load().isEmpty());
        QVERIFY(again.values().s3.enabled);
        QVERIFY(again.values().s3.secretAccessKey.isEmpty());
        QCOMPARE(again.values().s3.gateways.size(), 2);

        // Switching to a profile takes the key's secret out of the store.
        S3TargetDialog dialog(again, tokens);
        fill(dialog, QStringLiteral("s3://bucket/photos/"), QString(), false);
        QVERIFY2(dialog.save(), qPrintable(dialog.problem()));
        QCOMPARE(again.values().s3.target.profile, QStringLiteral("backup"));
        QVERIFY(again.values().s3.accessKeyId.isEmpty());
        QVERIFY(tokens.read(QStringLiteral("s3:AKIDEXAMPLE")).isEmpty());
    }

    void unusableFieldsAreRefusedWithTheReason_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("gateways");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("not s3://") << QStringLiteral("https://bucket/") << QString()
                                   << QStringLiteral("s3://");
        QTest::newRow("bucket name") << QStringLiteral("s3://a/") << QString() << QStringLiteral("3 to 63");
        QTest::newRow("gateway path") << QStringLiteral("s3://bucket/") << QStringLiteral("https://gw/bucket")
                                      << QStringLiteral("no path");
        QTest::newRow("gateway scheme")
            << QStringLiteral("s3://bucket/") << QStringLiteral("ftp://gw") << QStringLiteral("http://");
    }
    void unusableFieldsAreRefusedWithTheReason()
    {
        QFETCH(QString, url);
        QFETCH(QString, gateways);
        QFETCH(QString, mentions);
        SettingsStore store(path(QStringLiteral("bad-settings.json")), path(QStringLiteral("none.json")));
        store.load();
        FileTokenStore tokens(path(QStringLiteral("bad-tokens.json")));
        S3TargetDialog dialog(store, tokens);
        fill(dialog, url, gateways, false);
        QVERIFY(!dialog.save());
        QVERIFY2(dialog.problem().contains(mentions), qPrintable(dialog.problem()));
        const QLabel *shown = nullptr;
        for (const QLabel *label : dialog.findChildren<QLabel *>()) {
            if (label->text() == dialog.problem())
                shown = label;
        }
        QVERIFY(shown && !shown->isHidden());
        QVERIFY(!store.values().s3.enabled);
    }

    void adminLockedTargetCannotBeChanged()
    {
        const QString managed = path(QStringLiteral("managed.json"));
        QFile file(managed);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"managedBy\":\"IT\",\"locked\":[\"s3\"],\"settings\":{\"s3\":{\"enabled\":true,"
                   "\"url\":\"s3://corp-bucket/\",\"gateways\":[\"https://rgw.corp:7480\"]}}}");
        file.close();
        SettingsStore store(path(QStringLiteral("locked-settings.json")), managed);
        QVERIFY(store.load().isEmpty());
        FileTokenStore tokens(path(QStringLiteral("locked-tokens.json")));
        S3TargetDialog dialog(store, tokens);
        QVERIFY(!field<QLineEdit>(dialog, QStringLiteral("Bucket URL"))->isEnabled());
        UserSettings values = store.values();
        values.s3.target.url = QStringLiteral("s3://elsewhere/");
        QCOMPARE(store.update(values), QStringList{QStringLiteral("s3")});
        QCOMPARE(store.values().s3.target.url, QStringLiteral("s3://corp-bucket/"));
    }

    void controllerSendsToTheBucketAndSaysWhenKeysAreMissing()
    {
        // No keys anywhere: not in the environment, no ~/.aws, none in the settings.
        const QByteArray home = qgetenv("HOME");
        qputenv("HOME", path(QStringLiteral("empty-home")).toUtf8());
        for (const char *name : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"})
            qunsetenv(name);
        SettingsStore store(path(QStringLiteral("plan-settings.json")), path(QStringLiteral("none.json")));
        store.load();
        UserSettings values = store.values();
        values.s3.enabled = true;
        values.s3.target.url = QStringLiteral("s3://bucket/in/");
        values.s3.gateways = {QUrl(QStringLiteral("http://127.0.0.1:7480"))};
        store.update(values);
        TransferController controller(store, nullptr);
        const UploadPlan plan = controller.currentPlan();
        QVERIFY(plan.s3 == values.s3.target);
        QCOMPARE(plan.endpoints.size(), 1);
        QVERIFY(!plan.s3Credentials); // the profile's, found when the run starts

        const QString file = path(QStringLiteral("a.txt"));
        QFile source(file);
        QVERIFY(source.open(QIODevice::WriteOnly));
        source.write("hello");
        source.close();
        const TransferController::AddResult added = controller.addPaths({file});
        qputenv("HOME", home);
        QCOMPARE(added.files, 0);
        QCOMPARE(added.errors.size(), 1);
        QVERIFY2(added.errors.at(0).contains(QLatin1String("no S3 credentials found")),
                 qPrintable(added.errors.at(0)));
        QVERIFY(controller.sessions().empty());

        // Keys from the keyring go with the plan, and a new key makes a new session.
        values.s3.accessKeyId = QStringLiteral("AKIDEXAMPLE");
        values.s3.secretAccessKey = QStringLiteral("the-secret");
        store.update(values);
        const UploadPlan keyed = controller.currentPlan();
        QVERIFY(keyed.s3Credentials);
        QCOMPARE(keyed.s3Credentials->secretAccessKey, QStringLiteral("the-secret"));
    }
};

QTEST_MAIN(TestUiS3Target)
#include "tst_ui_s3target.moc"
