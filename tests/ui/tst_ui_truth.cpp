// Issue #15: what the window says matches what happens. Offscreen, against the real receiver on
// loopback: the totals and the title belong to the list, the chunk size shown is the one sent,
// "waiting for receivers" (naming them) is not "offline", a host:port endpoint works and one that
// speaks https is told so, names sort naturally, and the controls say what they need.
#include "EndpointsDialog.h"
#include "ReachabilityHint.h"
#include "ReceiverProcess.h"
#include "StatusPanel.h"
#include "TcpProxy.h"
#include "TestCertificate.h"
#include "TestFiles.h"
#include "Units.h"
#include "UploadSession.h"
#include "WindowHarness.h"

#include <QAction>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>

using namespace multilane;

namespace {

// A loopback port nobody listens on: an endpoint that does not answer.
quint16 deadPort()
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost);
    return server.serverPort();
}

QWidget *toolButtonFor(MainWindow &window, const QString &text)
{
    auto *toolbar = window.findChild<QToolBar *>(QStringLiteral("mainToolbar"));
    for (QAction *action : toolbar->actions()) {
        if (action->text().remove(QLatin1Char('&')) == text)
            return toolbar->widgetForAction(action);
    }
    return nullptr;
}

} // namespace

class TestUiTruth : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_storage.isValid() && m_source.isValid() && m_config.isValid());
        m_receiver = std::make_unique<ReceiverProcess>(m_storage.path());
        QVERIFY2(m_receiver->start(3, {QStringLiteral("--quiet")}), qPrintable(m_receiver->errorText()));
    }

    void totalsAndTitleBelongToTheList()
    {
        WindowHarness h(m_config.filePath(QStringLiteral("totals")), m_receiver->urls(), true);
        const QString first = m_source.filePath(QStringLiteral("first.bin"));
        QVERIFY(TestFiles::write(first, 3'000'000, 1));
        QVERIFY(h.window.addPaths({first}).isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(!h.controller.isBusy(), 60000);
        h.window.tick(0);
        QCOMPARE(h.window.status().totalText(), QStringLiteral("3.00 MB of 3.00 MB · 1 of 1 file"));

        h.window.model().clearFinished();
        h.window.tick(500);
        QCOMPARE(h.window.status().totalText(), QStringLiteral("Drop files to start"));

        // The next upload, held: its title and totals are its own, not the cleared one's.
        UserSettings values = h.settings.values();
        values.startOnDrop = false;
        h.settings.update(values);
        const QString second = m_source.filePath(QStringLiteral("second.bin"));
        QVERIFY(TestFiles::write(second, 2'000'000, 2));
        QVERIFY(h.window.addPaths({second}).isEmpty());
        QCOMPARE(h.window.status().totalText(), QStringLiteral("0 B of 2.00 MB · 0 of 1 file"));
        QCOMPARE(h.window.windowTitle(), QStringLiteral("0% — Multilane"));
        QCOMPARE(h.cell(0, TransferTableModel::Speed), QString());     // held: no speed
        QCOMPARE(h.cell(0, TransferTableModel::Endpoints), QString()); // nothing sent anywhere yet
    }

    void chunkSizeShownIsTheOneSent()
    {
        const QString file = m_source.filePath(QStringLiteral("chunked.bin"));
        QVERIFY(TestFiles::write(file, 96 * 1024 * 1024, 3));
        TcpProxy proxy(m_receiver->urls().first());
        WindowHarness h(m_config.filePath(QStringLiteral("chunks")), {proxy.url()}, true);
        UserSettings values = h.settings.values();
        values.chunkSizeAuto = true; // the engine picks each file's chunks
        h.settings.update(values);
        bool paused = false;
        connect(&proxy, &TcpProxy::forwardedUpstream, this, [&](qint64 total) {
            if (!paused && total > 8 * 1024 * 1024) {
                paused = true;
                h.controller.pauseAll(); // holds the upload mid-way, chunks known
            }
        });
        QVERIFY(h.window.addPaths({file}).isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(paused, 30000);
        h.window.tick(0);
        const TransferJob &job = h.window.model().job(0);
        QCOMPARE(job.state(), TransferState::Uploading);
        const QString status = h.window.statusText();
        QVERIFY2(status.contains(QStringLiteral(" · chunks %1").arg(Units::size(job.planner().chunkSize()))),
                 qPrintable(status));
        QVERIFY2(!status.contains(QLatin1String("auto")), qPrintable(status));
        // Paused: no speed anywhere, and no connections (a paused upload holds none).
        QCOMPARE(h.window.status().speedText(), QStringLiteral("↑ paused"));
        QCOMPARE(h.cell(0, TransferTableModel::Speed), QString());
        QCOMPARE(h.window.status().connectionsText(), QString());
        // Going again: how many connections, and why in the tooltip.
        h.controller.resumeAll();
        h.window.tick(500);
        const QString connections = h.window.status().connectionsText();
        QVERIFY2(connections.endsWith(QLatin1String(" connections")) ||
                     connections == QLatin1String("1 connection"),
                 qPrintable(connections));
        QVERIFY2(
            h.window.status().connectionsToolTip().startsWith(connections.section(QLatin1Char(' '), 0, 0)),
            qPrintable(h.window.status().connectionsToolTip()));
        QTRY_COMPARE_WITH_TIMEOUT(h.cell(0, TransferTableModel::State), QStringLiteral("done"), 120000);
    }

    void waitingForReceiversIsNotOffline()
    {
        const quint16 port = deadPort();
        ReachabilityHint hint(nullptr);
        WindowHarness h(m_config.filePath(QStringLiteral("waiting")),
                        {QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port))}, true, nullptr, &hint);
        const QString file = m_source.filePath(QStringLiteral("waiting.bin"));
        QVERIFY(TestFiles::write(file, 1'000'000, 4));
        QVERIFY(h.window.addPaths({file}).isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(h.cell(0, TransferTableModel::State),
                                  QStringLiteral("waiting for receivers"), 30000);
        h.window.tick(0);
        QCOMPARE(h.window.status().badgeText(), QStringLiteral("Waiting for receivers"));
        const QString tip = h.window.status().badgeToolTip();
        QVERIFY2(tip.contains(QStringLiteral("127.0.0.1:%1").arg(port)) &&
                     tip.contains(QLatin1String("answer")),
                 qPrintable(tip));
        QCOMPARE(h.cell(0, TransferTableModel::Speed), QString());
        QCOMPARE(h.window.status().speedText(), QStringLiteral("↑ waiting"));

        // The system says the network is gone: that is what the window says then.
        hint.onReachabilityChanged(QNetworkInformation::Reachability::Disconnected);
        h.window.tick(500);
        QCOMPARE(h.cell(0, TransferTableModel::State), QStringLiteral("offline"));
        QCOMPARE(h.window.status().badgeText(), QStringLiteral("Offline"));
        hint.onReachabilityChanged(QNetworkInformation::Reachability::Online);
        h.window.tick(1000);
        QCOMPARE(h.window.status().badgeText(), QStringLiteral("Waiting for receivers"));
    }

    void hostAndPortIsAnEndpoint()
    {
        const QUrl url = m_receiver->urls().first();
        EndpointsDialog dialog({}, false, {}, {});
        dialog.addEndpoint();
        const QString typed = QStringLiteral("127.0.0.1:%1").arg(url.port());
        dialog.urlField()->setText(typed);
        Q_EMIT dialog.urlField()->textEdited(typed);
        QCOMPARE(dialog.urlCell(0), QStringLiteral("http://%1").arg(typed));
        QSignalSpy finished(&dialog, &EndpointsDialog::testFinished);
        dialog.testAll();
        QVERIFY(finished.wait(30000));
        QVERIFY2(dialog.testResult(0).startsWith(QStringLiteral("OK · ")), qPrintable(dialog.testResult(0)));
        QVERIFY(!dialog.validate());
        QCOMPARE(dialog.entries().first().endpoint.url.toString(), QStringLiteral("http://%1").arg(typed));

        // Not a URL at all: kept as typed, said so in the cell, refused on OK with why.
        dialog.urlField()->setText(QStringLiteral("recv:port"));
        Q_EMIT dialog.urlField()->textEdited(QStringLiteral("recv:port"));
        QVERIFY2(dialog.urlCell(0).contains(QLatin1String("recv:port")), qPrintable(dialog.urlCell(0)));
        const std::optional<QString> problem = dialog.validate();
        QVERIFY(problem && problem->contains(QLatin1String("recv:port")));
    }

    void anHttpsReceiverTypedAsHostPortIsNamed()
    {
        QTemporaryDir keys;
        const TestCertificate certificate = TestCertificate::create(keys.path());
        QVERIFY(certificate.isValid());
        QTemporaryDir storage;
        ReceiverProcess secure(storage.path());
        QVERIFY2(
            secure.start(1, {QStringLiteral("--tls-cert"), certificate.certificateFile,
                             QStringLiteral("--tls-key"), certificate.keyFile, QStringLiteral("--quiet")}),
            qPrintable(secure.errorText()));
        EndpointsDialog dialog({}, false, {}, {});
        dialog.addEndpoint();
        const QString typed = QStringLiteral("127.0.0.1:%1").arg(secure.urls().first().port());
        dialog.urlField()->setText(typed);
        Q_EMIT dialog.urlField()->textEdited(typed);
        QSignalSpy finished(&dialog, &EndpointsDialog::testFinished);
        dialog.testAll();
        QVERIFY(finished.wait(30000));
        QVERIFY2(dialog.testResult(0).contains(
                     QStringLiteral("speaks https, not http: change the URL to https://%1").arg(typed)),
                 qPrintable(dialog.testResult(0)));
    }

    void namesSortNaturally()
    {
        const QString folder = m_source.filePath(QStringLiteral("numbered"));
        for (int i : {1, 2, 10})
            QVERIFY(TestFiles::write(folder + QStringLiteral("/file%1.dat").arg(i), 1000, quint32(i)));
        WindowHarness h(m_config.filePath(QStringLiteral("natural")), m_receiver->urls(), false);
        QVERIFY(h.window.addPaths({folder}).isEmpty());
        QStringList names;
        for (int row = 0; row < h.window.model().rowCount(); ++row)
            names.append(h.cell(row, TransferTableModel::Name));
        QCOMPARE(names,
                 (QStringList{QStringLiteral("numbered/file1.dat"), QStringLiteral("numbered/file2.dat"),
                              QStringLiteral("numbered/file10.dat")}));
        QVERIFY2(h.window.statusBar()->currentMessage() == QLatin1String("Added 3 files"),
                 qPrintable(h.window.statusBar()->currentMessage()));
    }

    void controlsStayPutAndSayWhatTheyNeed()
    {
        WindowHarness h(m_config.filePath(QStringLiteral("controls")), m_receiver->urls(), false);
        h.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&h.window));
        QWidget *clear = toolButtonFor(h.window, QStringLiteral("Clear finished"));
        QVERIFY(clear);
        const int before = clear->mapTo(&h.window, QPoint()).x();
        h.controller.pauseAll();
        h.window.tick(0);
        QVERIFY(toolButtonFor(h.window, QStringLiteral("Resume all")));
        QTRY_COMPARE(clear->mapTo(&h.window, QPoint()).x(), before); // Resume all is no wider
        h.controller.resumeAll();

        // Ctrl+P with no row selected says what to do instead of doing nothing.
        h.window.statusBar()->clearMessage();
        QTest::keyClick(&h.window, Qt::Key_P, Qt::ControlModifier);
        QVERIFY2(h.window.statusBar()->currentMessage().contains(QLatin1String("Select the files to pause")),
                 qPrintable(h.window.statusBar()->currentMessage()));
    }

private:
    QTemporaryDir m_storage;
    QTemporaryDir m_source;
    QTemporaryDir m_config;
    std::unique_ptr<ReceiverProcess> m_receiver;
};

QTEST_MAIN(TestUiTruth)
#include "tst_ui_truth.moc"
