// Settings, the admin's managed file and the endpoints dialog, offscreen and without a network.
#include "EndpointsDialog.h"
#include "FileTokenStore.h"
#include "SettingsDialog.h"
#include "SettingsJson.h"
#include "SettingsStore.h"
#include "TestCertificate.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

static EndpointEntry entry(const QString &url, const QByteArray &token, int weight, int connections,
                           bool enabled)
{
    EndpointEntry e;
    e.endpoint.url = QUrl(url);
    e.endpoint.token = token;
    e.endpoint.weight = weight;
    e.endpoint.maxConnections = connections;
    e.enabled = enabled;
    return e;
}

static bool writeFile(const QString &path, const QByteArray &contents)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(contents) == contents.size();
}

class TestUiSettings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    void settingsSurviveARestart()
    {
        const QString userFile = SettingsStore::defaultUserFile();
        QVERIFY(userFile.contains(QLatin1String("qttest"))); // test mode: never the user's own file
        QFile::remove(userFile);
        UserSettings wanted;
        {
            SettingsStore store(userFile, m_dir.filePath(QStringLiteral("no-managed.json")));
            QVERIFY(store.load().isEmpty());
            QCOMPARE(store.values().connections, UserSettings().connections); // defaults on first start
            wanted = store.values();
            wanted.connections = 17;
            wanted.chunkSizeAuto = false;
            wanted.chunkSize = 16 * 1024 * 1024;
            wanted.speedLimitBytesPerSecond = 5000000;
            wanted.maxAttempts = 3;
            wanted.notifyOnFinish = false;
            wanted.startOnDrop = false;
            wanted.onConflict = ConflictPolicy::Overwrite;
            wanted.destination = QStringLiteral("backups/laptop");
            wanted.endpoints = {entry(QStringLiteral("http://10.0.0.5:9101"), {}, 2, 8, true),
                                entry(QStringLiteral("http://10.0.0.6:9101"), {}, 1, 4, false)};
            QVERIFY(store.update(wanted).isEmpty());
            // Destroyed with a save pending: the destructor writes it.
        }
        QVERIFY(QFile::exists(userFile));
        QVERIFY(!QFile::exists(userFile + QStringLiteral(".tmp")));
        SettingsStore again(userFile, m_dir.filePath(QStringLiteral("no-managed.json")));
        QVERIFY(again.load().isEmpty());
        QCOMPARE(SettingsJson::toJson(again.values()), SettingsJson::toJson(wanted));
        QVERIFY(again.values().endpoints == wanted.endpoints);
    }

    void tokensStayOutOfTheSettingsFile()
    {
        const QString userFile = m_dir.filePath(QStringLiteral("tokens-user.json"));
        FileTokenStore tokens(m_dir.filePath(QStringLiteral("tokens.json")));
        UserSettings values;
        values.endpoints = {entry(QStringLiteral("http://10.0.0.5:9101"), "s3cret", 1, 6, true)};
        {
            SettingsStore store(userFile, {});
            store.load();
            store.update(values);
            QVERIFY(!tokens.storeTokens(values.endpoints));
            QVERIFY(!store.saveNow());
        }
        QFile file(userFile);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains("s3cret"));
        QCOMPARE(QFile::permissions(m_dir.filePath(QStringLiteral("tokens.json"))),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser |
                     QFileDevice::WriteUser);
        SettingsStore again(userFile, {});
        again.load();
        UserSettings loaded = again.values();
        FileTokenStore reread(m_dir.filePath(QStringLiteral("tokens.json")));
        reread.fillTokens(loaded.endpoints);
        QCOMPARE(loaded.endpoints.first().endpoint.token, QByteArray("s3cret"));
    }

    void settingsSpeakTheWindowsUnits()
    {
        SettingsStore store(m_dir.filePath(QStringLiteral("units-user.json")),
                            m_dir.filePath(QStringLiteral("no-managed.json")));
        QVERIFY(store.load().isEmpty());
        UserSettings values = store.values();
        values.chunkSize = 16 * 1024 * 1024; // as the command line's 16M would set it
        values.speedLimitBytesPerSecond = 2'500'000;
        store.update(values);
        SettingsDialog dialog(store);
        // The desktop appends " — Multilane" itself.
        QCOMPARE(dialog.windowTitle(), QStringLiteral("Settings"));
        // Automatic chunks show no number the engine would not use, but what it does.
        QVERIFY(dialog.chunkSizeField()->isHidden());
        QVERIFY(!dialog.chunkAutoNote()->isHidden());
        QVERIFY(dialog.chunkAutoNote()->text().contains(QLatin1String("status bar")));
        // Rates and sizes in SI units, like everywhere in the window.
        QCOMPARE(dialog.speedLimitField()->suffix(), QStringLiteral(" MB/s"));
        QCOMPARE(dialog.speedLimitField()->value(), 2.5);
        QCOMPARE(dialog.chunkSizeField()->suffix(), QStringLiteral(" MB"));
        // Left alone, values are kept to the byte, not rounded to what the fields show.
        QCOMPARE(dialog.editedValues().chunkSize, qint64(16 * 1024 * 1024));
        dialog.speedLimitField()->setValue(0.5);
        QCOMPARE(dialog.editedValues().speedLimitBytesPerSecond, qint64(500'000));
    }

    void lockedAdminKeyCannotBeChangedFromTheUi()
    {
        const QString managed = m_dir.filePath(QStringLiteral("managed.json"));
        QVERIFY(writeFile(managed, "{\"managedBy\": \"Example IT <it@example.com>\",\n"
                                   " \"settings\": {\"connections\": 8, \"maxAttempts\": 9,\n"
                                   "   \"endpoints\": [{\"url\": \"http://upload.example:9101\","
                                   " \"token\": \"admin-token\"}]},\n"
                                   " \"locked\": [\"connections\", \"endpoints\"]}\n"));
        // The user's file tries to override both locked keys and one open key.
        const QString userFile = m_dir.filePath(QStringLiteral("locked-user.json"));
        QVERIFY(writeFile(userFile, "{\"connections\": 99, \"maxAttempts\": 2,"
                                    " \"endpoints\": [{\"url\": \"http://mine:1\"}]}"));
        SettingsStore store(userFile, managed);
        QVERIFY(store.load().isEmpty());
        QCOMPARE(store.values().connections, 8);
        QCOMPARE(store.values().maxAttempts, 2); // not locked: the user's value wins
        QCOMPARE(store.values().endpoints.size(), 1);
        QCOMPARE(store.values().endpoints.first().endpoint.token, QByteArray("admin-token"));

        SettingsDialog dialog(store);
        auto *connections = dialog.findChild<QSpinBox *>();
        QVERIFY(connections);
        QCOMPARE(connections->accessibleName(), QStringLiteral("Connections"));
        QVERIFY(!connections->isEnabled());
        QVERIFY(connections->toolTip().contains(QLatin1String("Example IT")));
        // Even when the widget is forced, the store keeps the admin's value.
        connections->setValue(50);
        QCOMPARE(dialog.apply(), QStringList{SettingKeys::connections()});
        QCOMPARE(store.values().connections, 8);

        EndpointsDialog endpoints(store.values().endpoints, store.isLocked(SettingKeys::endpoints()),
                                  store.managedBy(), QStringLiteral("tokens"));
        endpoints.addEndpoint();
        endpoints.selectRow(0);
        QVERIFY(!endpoints.urlField()->isEnabled());
        QCOMPARE(endpoints.entries().size(), 1);
        for (QPushButton *button : endpoints.findChildren<QPushButton *>()) {
            if (button->accessibleName() == QLatin1String("Add endpoint"))
                QVERIFY(!button->isEnabled());
        }
    }

    void endpointsDialogEditsAndRoundTrips()
    {
        EndpointsDialog dialog({entry(QStringLiteral("http://a.example:9101"), "ta", 1, 6, true)}, false, {},
                               QStringLiteral("tokens"));
        dialog.addEndpoint();
        QCOMPARE(dialog.currentRow(), 1);
        dialog.urlField()->clear();
        QTest::keyClicks(dialog.urlField(), QStringLiteral("http://b.example:9102"));
        QTest::keyClicks(dialog.tokenField(), QStringLiteral("tb"));
        dialog.weightField()->setValue(3);
        dialog.maxConnectionsField()->setValue(12);
        dialog.enabledField()->setChecked(false);
        dialog.moveCurrent(-1);
        QCOMPARE(dialog.currentRow(), 0);
        QCOMPARE(dialog.entries().first().endpoint.url, QUrl(QStringLiteral("http://b.example:9102")));

        const QList<EndpointEntry> expected{
            entry(QStringLiteral("http://b.example:9102"), "tb", 3, 12, false),
            entry(QStringLiteral("http://a.example:9101"), "ta", 1, 6, true)};
        QVERIFY(dialog.entries() == expected);

        const QString file = m_dir.filePath(QStringLiteral("endpoints.json"));
        QVERIFY(!dialog.exportTo(file, true));
        // The exported file is what `multilane --endpoints-file` reads.
        const Parsed<QList<Endpoint>> cli = EndpointParser::fromFile(file);
        QVERIFY2(cli.value, qPrintable(cli.error));
        QCOMPARE(cli.value->size(), 2);
        QCOMPARE(cli.value->first().token, QByteArray("tb"));

        EndpointsDialog other({}, false, {}, QStringLiteral("tokens"));
        QVERIFY(!other.importFrom(file));
        QVERIFY(other.entries() == expected);

        dialog.selectRow(0);
        dialog.removeCurrent();
        QCOMPARE(dialog.entries().size(), 1);

        // Without tokens, and a plain URL list imports too.
        QVERIFY(!dialog.exportTo(file, false));
        QFile exported(file);
        QVERIFY(exported.open(QIODevice::ReadOnly));
        QVERIFY(!exported.readAll().contains("\"token\""));
        const QString list = m_dir.filePath(QStringLiteral("list.txt"));
        QVERIFY(writeFile(list, "# two receivers\nhttp://c.example:1\nd.example:2\n"));
        QVERIFY(!other.importFrom(list));
        QCOMPARE(other.entries().size(), 2);
        QVERIFY(other.importFrom(m_dir.filePath(QStringLiteral("missing.json"))).has_value());
    }

    void httpsTrustSettingsAreCheckedAndKept()
    {
        const TestCertificate certificate = TestCertificate::create(m_dir.path(), QStringLiteral("ca"));
        QVERIFY(certificate.isValid());
        EndpointsDialog dialog({entry(QStringLiteral("https://r.example:9101"), "t", 1, 6, true)}, false, {},
                               QStringLiteral("tokens"));
        dialog.selectRow(0);
        QTest::keyClicks(dialog.caFileField(), certificate.certificateFile);
        QTest::keyClicks(dialog.pinField(), QStringLiteral("not-a-pin"));
        const std::optional<QString> badPin = dialog.validate();
        QVERIFY(badPin && badPin->contains(QLatin1String("SHA-256 pin")));

        dialog.pinField()->clear();
        QString colons; // as `openssl x509 -fingerprint -sha256` prints it
        for (qsizetype i = 0; i < certificate.sha256Hex.size(); i += 2)
            colons += (i ? QStringLiteral(":") : QString()) + certificate.sha256Hex.mid(i, 2).toUpper();
        QTest::keyClicks(dialog.pinField(), colons);
        QCOMPARE(dialog.validate(), std::nullopt);
        const Endpoint &checked = dialog.entries().first().endpoint;
        QCOMPARE(checked.caCertificates.size(), 1);
        QCOMPARE(checked.pinSha256.toHex(), certificate.sha256Hex.toLatin1());

        // Exported for the command line, and kept by the settings file across a restart.
        const QString file = m_dir.filePath(QStringLiteral("tls-endpoints.json"));
        QVERIFY(!dialog.exportTo(file, false));
        const Parsed<QList<Endpoint>> cli = EndpointParser::fromFile(file);
        QVERIFY2(cli.value, qPrintable(cli.error));
        QCOMPARE(cli.value->first().caFile, certificate.certificateFile);
        QCOMPARE(cli.value->first().pinSha256, checked.pinSha256);
        QCOMPARE(cli.value->first().caCertificates.size(), 1);
        const QString settingsFile = m_dir.filePath(QStringLiteral("tls-settings.json"));
        {
            SettingsStore store(settingsFile, m_dir.filePath(QStringLiteral("none.json")));
            store.load();
            UserSettings values = store.values();
            values.endpoints = dialog.entries();
            store.update(values);
        }
        SettingsStore reopened(settingsFile, m_dir.filePath(QStringLiteral("none.json")));
        reopened.load();
        QCOMPARE(reopened.values().endpoints.size(), 1);
        const Endpoint &kept = reopened.values().endpoints.first().endpoint; // tokens live elsewhere
        QCOMPARE(kept.caFile, certificate.certificateFile);
        QCOMPARE(kept.pinSha256, checked.pinSha256);
        QCOMPARE(kept.caCertificates.size(), 1);

        // A CA file or a pin on plain http:// is refused with a reason.
        EndpointsDialog plain({entry(QStringLiteral("http://r.example:9101"), "t", 1, 6, true)}, false, {},
                              QStringLiteral("tokens"));
        plain.selectRow(0);
        QTest::keyClicks(plain.caFileField(), certificate.certificateFile);
        const std::optional<QString> notHttps = plain.validate();
        QVERIFY(notHttps && notHttps->contains(QLatin1String("https://")));
    }

    void badAdminValuesAreReportedNotUsed()
    {
        const QString managed = m_dir.filePath(QStringLiteral("bad-managed.json"));
        QVERIFY(writeFile(managed, "{\"settings\": {\"chunkSize\": \"12 parsecs\", \"connections\": -4}}"));
        SettingsStore store(m_dir.filePath(QStringLiteral("bad-user.json")), managed);
        const QStringList warnings = store.load();
        QCOMPARE(warnings.size(), 2);
        QCOMPARE(store.values().connections, UserSettings().connections);
        QVERIFY(store.values().chunkSizeAuto);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestUiSettings)
#include "tst_ui_settings.moc"
