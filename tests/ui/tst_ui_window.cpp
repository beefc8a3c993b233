// The main window offscreen: drops make rows, an upload to the real receiver reaches done, and
// Pause really stops the bytes (counted at a proxy in front of the receiver).
#include "DropZone.h"
#include "EndpointsDialog.h"
#include "FileTokenStore.h"
#include "MainWindow.h"
#include "ReceiverProcess.h"
#include "SettingsStore.h"
#include "TcpProxy.h"
#include "TestFiles.h"
#include "TransferController.h"
#include "TransferTableModel.h"
#include "Units.h"
#include "UploadSession.h"
#include "WindowHarness.h"

#include <QApplication>
#include <QDropEvent>
#include <QMimeData>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

using Harness = WindowHarness;

class TestUiWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_storage.isValid() && m_source.isValid() && m_config.isValid());
        m_receiver = std::make_unique<ReceiverProcess>(m_storage.path());
        QVERIFY2(m_receiver->start(1), qPrintable(m_receiver->errorText()));
    }

    void dropOfFilesAndAFolderMakesRows()
    {
        const QString file = m_source.filePath(QStringLiteral("notes.txt"));
        const QString folder = m_source.filePath(QStringLiteral("photos"));
        QVERIFY(TestFiles::write(file, 1000, 1));
        QVERIFY(TestFiles::write(folder + QStringLiteral("/a.jpg"), 2000, 2));
        QVERIFY(TestFiles::write(folder + QStringLiteral("/2024/b.jpg"), 3000, 3));

        // Held (start on drop off), so the rows stay put while we look at them.
        Harness h(m_config.filePath(QStringLiteral("drop")), m_receiver->urls(), false);
        h.window.show();
        auto *zone = h.window.findChild<DropZone *>();
        QVERIFY(zone);
        QMimeData mime;
        mime.setUrls(
            {QUrl::fromLocalFile(file), QUrl::fromLocalFile(folder), QUrl(QStringLiteral("https://x.y/z"))});
        const QPoint centre = zone->rect().center();
        QDragEnterEvent enter(centre, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(zone, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(centre), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(zone, &drop);

        TransferTableModel &model = h.window.model();
        QCOMPARE(model.rowCount(), 3);
        QStringList names;
        for (int row = 0; row < model.rowCount(); ++row) {
            names.append(h.cell(row, TransferTableModel::Name));
            QCOMPARE(h.cell(row, TransferTableModel::State), QStringLiteral("paused"));
        }
        names.sort();
        QCOMPARE(names, (QStringList{QStringLiteral("notes.txt"), QStringLiteral("photos/2024/b.jpg"),
                                     QStringLiteral("photos/a.jpg")}));

        // Batched updates: one dataChanged per contiguous run of changed rows.
        UploadSession *session = h.controller.sessions().front().get();
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.refresh(session, {0, 1, 2});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex().row(), 0);
        QCOMPARE(changed.at(0).at(1).toModelIndex().row(), 2);
        changed.clear();
        model.refresh(session, {2, 0});
        QCOMPARE(changed.count(), 2);

        // Removing a row takes it out of the list (and cancels it).
        model.remove({1});
        QCOMPARE(model.rowCount(), 2);
    }

    void uploadDrivesARowToDone()
    {
        const QString file = m_source.filePath(QStringLiteral("upload.bin"));
        QVERIFY(TestFiles::write(file, 5 * 1024 * 1024 + 17, 7));
        Harness h(m_config.filePath(QStringLiteral("upload")), m_receiver->urls(), true);
        QVERIFY(h.window.addPaths({file}).isEmpty());
        QCOMPARE(h.window.model().rowCount(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(h.cell(0, TransferTableModel::State), QStringLiteral("done"), 60000);
        // Named once its bytes went there.
        QCOMPARE(h.cell(0, TransferTableModel::Endpoints), m_receiver->urls().first().authority());
        QCOMPARE(h.progress(0), 1000);
        QCOMPARE(h.cell(0, TransferTableModel::Progress), QStringLiteral("100%"));
        QVERIFY(TestFiles::sameContents(file, m_storage.filePath(QStringLiteral("upload.bin"))));
        QTRY_VERIFY_WITH_TIMEOUT(!h.controller.isBusy(), 30000);
        h.window.tick(0);
        QVERIFY2(h.window.statusText().contains(QLatin1String("1 of 1 file ")),
                 qPrintable(h.window.statusText()));
        h.window.model().clearFinished();
        QCOMPARE(h.window.model().rowCount(), 0);
    }

    void linkIsMeasuredShownAndSetsTheAutoChunkSize()
    {
        Harness h(m_config.filePath(QStringLiteral("link")), m_receiver->urls(), true);
        UserSettings values = h.settings.values();
        values.chunkSizeAuto = true;
        h.settings.update(values);
        QVERIFY(h.window.statusText().contains(QLatin1String("Uplink not measured")));

        QSignalSpy changed(&h.controller, &TransferController::linkChanged);
        h.controller.measureLink();
        QVERIFY(h.controller.isMeasuringLink());
        QCOMPARE(changed.size(), 1);
        QVERIFY(changed.wait(30000));
        QCOMPARE(changed.last().first().toString(), QString()); // no failure
        QVERIFY(!h.controller.isMeasuringLink());
        QVERIFY(h.controller.link());
        QVERIFY(h.controller.link()->bytesPerSecond > 0);
        // The measured chunk size is what new uploads start from; the status bar says the uplink,
        // and no chunk size while nothing is sent (it shows the sizes in use, not a setting).
        QCOMPARE(h.controller.currentOptions().chunkSize, h.controller.link()->chunkSize);
        const QString status = h.window.statusText();
        QVERIFY2(status.contains(
                     QStringLiteral("Uplink %1").arg(Units::rate(h.controller.link()->bytesPerSecond))),
                 qPrintable(status));
        QVERIFY2(!status.contains(QLatin1String("chunk")), qPrintable(status));
    }

    // A measurement gives way to an upload that starts while it runs ("Open with Multilane"
    // measures and sends at once): it would measure what the upload leaves of the link and show
    // that as the uplink. The link is measured once nothing is sent; not while something is.
    void aMeasurementGivesWayToAnUpload()
    {
        const QString file = m_source.filePath(QStringLiteral("during-probe.bin"));
        QVERIFY(TestFiles::write(file, 3 * 1024 * 1024, 11));
        Harness h(m_config.filePath(QStringLiteral("giveway")), m_receiver->urls(), true);
        QSignalSpy changed(&h.controller, &TransferController::linkChanged);
        h.controller.measureLink();
        QVERIFY(h.controller.isMeasuringLink());
        QSignalSpy finished(&h.controller, &TransferController::batchFinished);
        QVERIFY(h.window.addPaths({file}).isEmpty());
        // The upload starts (its endpoint check answered) long before the probe's second of
        // streams is over: the probe ends without a figure.
        QTRY_VERIFY_WITH_TIMEOUT(!h.controller.isMeasuringLink() || !finished.isEmpty(), 30000);
        QVERIFY2(finished.isEmpty(), "the upload ended before the probe gave way");
        QVERIFY(!h.controller.link());
        QCOMPARE(changed.size(), 2); // started, ended
        QVERIFY2(h.window.statusText().contains(QLatin1String("Uplink: measured when the uploads are done")),
                 qPrintable(h.window.statusText()));
        // While the upload runs, asking again waits for it.
        h.controller.measureLink();
        QVERIFY(!h.controller.isMeasuringLink());
        // Once it is over the link is measured, alone.
        QVERIFY(finished.wait(60000));
        QVERIFY(h.controller.isMeasuringLink());
        QVERIFY(changed.wait(30000));
        QVERIFY(!h.controller.isMeasuringLink());
        QVERIFY(h.controller.link());
        QVERIFY(h.controller.link()->bytesPerSecond > 0);
    }

    void endpointTestRunsHealthAndBandwidth()
    {
        EndpointEntry good;
        good.endpoint.url = m_receiver->urls().first();
        EndpointEntry dead;
        dead.endpoint.url = QUrl(QStringLiteral("http://127.0.0.1:1"));
        EndpointsDialog dialog({good, dead}, false, {}, {});

        // One Test checks every row, whichever is selected.
        QSignalSpy finished(&dialog, &EndpointsDialog::testFinished);
        dialog.selectRow(1);
        dialog.testAll();
        QVERIFY(finished.wait(30000));
        const QString result = dialog.testResult(0);
        // That it answers, the upload's rate and one round trip: no chunk size (the engine picks
        // it per file) and no second, unexplained time.
        QVERIFY2(result.startsWith(QStringLiteral("OK · ")) &&
                     result.contains(QStringLiteral("/s up · round trip ")) &&
                     result.endsWith(QLatin1String(" ms")) && !result.contains(QLatin1String("chunk")),
                 qPrintable(result));
        QVERIFY2(dialog.testResult(1).contains(QLatin1String("does not answer")),
                 qPrintable(dialog.testResult(1)));
        QVERIFY(!dialog.testResult(1).contains(QLatin1String("measuring")));
    }

    void pauseStopsTheBytesAndResumeFinishes()
    {
        const QString file = m_source.filePath(QStringLiteral("big.bin"));
        QVERIFY(TestFiles::write(file, 256 * 1024 * 1024, 11));
        TcpProxy proxy(m_receiver->urls().first());
        Harness h(m_config.filePath(QStringLiteral("pause")), {proxy.url()}, true);
        // Pause from inside the byte counter's signal: early, long before 256 MiB are through.
        bool paused = false;
        connect(&proxy, &TcpProxy::forwardedUpstream, this, [&](qint64 total) {
            if (!paused && total > 4 * 1024 * 1024) {
                paused = true;
                h.controller.pauseAll();
            }
        });
        QVERIFY(h.window.addPaths({file}).isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(paused, 30000);
        // A paused transfer holds no connection; once they are closed nothing more can arrive.
        QTRY_COMPARE_WITH_TIMEOUT(proxy.openConnections(), 0, 30000);
        const qint64 atPause = proxy.bytesUpstream();
        QVERIFY(atPause < 256 * 1024 * 1024);
        QTRY_COMPARE_WITH_TIMEOUT(h.cell(0, TransferTableModel::State), QStringLiteral("paused"), 30000);
        // An observation window, not a synchronisation: the receiver must see nothing in it.
        QTest::qWait(1500);
        QCOMPARE(proxy.bytesUpstream(), atPause);
        QCOMPARE(proxy.openConnections(), 0);

        h.controller.resumeAll();
        QTRY_COMPARE_WITH_TIMEOUT(h.cell(0, TransferTableModel::State), QStringLiteral("done"), 120000);
        QVERIFY(proxy.bytesUpstream() > atPause);
        QVERIFY(TestFiles::sameContents(file, m_storage.filePath(QStringLiteral("big.bin"))));
    }

private:
    QTemporaryDir m_storage;
    QTemporaryDir m_source;
    QTemporaryDir m_config;
    std::unique_ptr<ReceiverProcess> m_receiver;
};

QTEST_MAIN(TestUiWindow)
#include "tst_ui_window.moc"
