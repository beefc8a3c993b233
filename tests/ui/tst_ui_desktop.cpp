// The window as a desktop citizen, offscreen: the tray's menu and tooltip, notifications as the
// settings ask, the close dialog (pause and quit, or cancel), and unfinished uploads from the
// journal offered when the window starts (resume or discard).
#include "FileTokenStore.h"
#include "MainWindow.h"
#include "ReceiverProcess.h"
#include "ResumeJournal.h"
#include "SettingsStore.h"
#include "TestFiles.h"
#include "TransferController.h"
#include "TransferTableModel.h"
#include "TrayIcon.h"
#include "Units.h"
#include "WindowHarness.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace multilane;

namespace {

// What the last message box answered by answerNextMessageBox() said and offered.
struct SeenBox {
    QString text;
    QStringList buttons;
};
SeenBox lastBox;

// Clicks the button labelled `text` in the next modal message box, once it is up.
void answerNextMessageBox(const QString &text)
{
    QTimer::singleShot(0, qApp, [text] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box) {
            answerNextMessageBox(text); // not shown yet: look again on the next turn
            return;
        }
        lastBox = {box->text(), {}};
        for (QAbstractButton *button : box->buttons())
            lastBox.buttons.append(button->text().remove(QLatin1Char('&')));
        for (QAbstractButton *button : box->buttons()) {
            if (button->text().remove(QLatin1Char('&')) == text) {
                button->click();
                return;
            }
        }
        box->reject(); // no such button: the test's QCOMPARE on the outcome fails
    });
}

QAction *actionNamed(QMenu *menu, const QString &text)
{
    for (QAction *action : menu->actions()) {
        if (action->text() == text)
            return action;
    }
    return nullptr;
}

} // namespace

class TestUiDesktop : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_storage.isValid() && m_source.isValid() && m_config.isValid());
        m_receiver = std::make_unique<ReceiverProcess>(m_storage.path());
        QVERIFY2(m_receiver->start(1), qPrintable(m_receiver->errorText()));
    }

    void trayMenuPausesResumesAndShowsProgress()
    {
        TrayIcon tray;
        QSignalSpy pause(&tray, &TrayIcon::pauseAllRequested);
        QSignalSpy quit(&tray, &TrayIcon::quitRequested);
        QAction *pauseAction = actionNamed(tray.menu(), QStringLiteral("Pause all"));
        QVERIFY(pauseAction);
        pauseAction->trigger();
        QCOMPARE(pause.size(), 1);
        QCOMPARE(pause.last().first().toBool(), true);

        tray.setStatus(QStringLiteral("Multilane — 42% · ↑ 3 MB/s"), true);
        QCOMPARE(tray.toolTip(), QStringLiteral("Multilane — 42% · ↑ 3 MB/s"));
        QCOMPARE(pauseAction->text(), QStringLiteral("Resume all"));
        pauseAction->trigger();
        QCOMPARE(pause.last().first().toBool(), false); // resume

        actionNamed(tray.menu(), QStringLiteral("Quit"))->trigger();
        QCOMPARE(quit.size(), 1);
    }

    void notificationsFollowTheSettings()
    {
        WindowHarness d(m_config.filePath(QStringLiteral("notify")), m_receiver->urls(), true);
        QSignalSpy notified(&d.window, &MainWindow::notificationPosted);
        QSignalSpy batches(&d.controller, &TransferController::batchFinished);
        const QString first = m_source.filePath(QStringLiteral("notify-1.bin"));
        QVERIFY(TestFiles::write(first, 300000, 1));
        QVERIFY(d.window.addPaths({first}).isEmpty());
        QVERIFY(batches.wait(30000));
        QCOMPARE(notified.size(), 1);
        QCOMPARE(notified.last().at(0).toString(), QStringLiteral("Upload finished"));
        QCOMPARE(notified.last().at(2).toBool(), false);

        UserSettings values = d.settings.values();
        values.notifyOnFinish = false; // failures only
        d.settings.update(values);
        const QString second = m_source.filePath(QStringLiteral("notify-2.bin"));
        QVERIFY(TestFiles::write(second, 300000, 2));
        QVERIFY(d.window.addPaths({second}).isEmpty());
        QVERIFY(batches.wait(30000));
        QCOMPARE(batches.size(), 2);
        QCOMPARE(notified.size(), 1); // nothing new
    }

    void closingWhileBusyAsks()
    {
        // Queued, not started: the window is busy without a byte moving.
        WindowHarness d(m_config.filePath(QStringLiteral("close")), m_receiver->urls(), false);
        const QString file = m_source.filePath(QStringLiteral("close.bin"));
        QVERIFY(TestFiles::write(file, 300000, 3));
        QVERIFY(d.window.addPaths({file}).isEmpty());
        QVERIFY(d.controller.isBusy());
        d.window.show();

        answerNextMessageBox(QStringLiteral("Cancel"));
        QVERIFY(!d.window.close()); // the close was refused: still there, not paused
        QVERIFY(d.window.isVisible());
        QVERIFY(!d.controller.isPaused());
        // No tray here (offscreen): the question offers exactly what its buttons do.
        QVERIFY(!d.window.trayIcon());
        QVERIFY2(!lastBox.text.contains(QLatin1String("tray")), qPrintable(lastBox.text));
        QVERIFY2(lastBox.text.contains(QLatin1String("Pause them and quit?")), qPrintable(lastBox.text));
        lastBox.buttons.sort();
        QCOMPARE(lastBox.buttons, (QStringList{QStringLiteral("Cancel"), QStringLiteral("Pause and quit")}));

        answerNextMessageBox(QStringLiteral("Pause and quit"));
        QVERIFY(d.window.close());
        QVERIFY(d.controller.isPaused()); // the journal keeps the place for the next start
    }

    void unfinishedUploadsAreOfferedAtStart_data()
    {
        QTest::addColumn<bool>("resume");
        QTest::newRow("Resume") << true;
        QTest::newRow("Discard") << false;
    }
    void unfinishedUploadsAreOfferedAtStart()
    {
        QFETCH(bool, resume);
        QTemporaryDir state;
        const QString file = m_source.filePath(QStringLiteral("offered-%1.bin").arg(resume));
        QVERIFY(TestFiles::write(file, 3 * 1024 * 1024 + 7, 4));
        {
            // What an earlier run left: a batch with one file, nothing sent yet.
            ResumeJournal earlier(state.path());
            QVERIFY(!earlier.open());
            JournalBatch batch;
            Endpoint endpoint;
            endpoint.url = m_receiver->urls().first();
            batch.endpoints = {endpoint};
            batch.chunkSize = 1024 * 1024;
            const QString id = earlier.addBatch(batch);
            const QFileInfo info(file);
            QVERIFY(earlier.addFile(
                id, {file, info.fileName(), info.size(), info.lastModified().toMSecsSinceEpoch()}));
        }
        ResumeJournal journal(state.path());
        QVERIFY(!journal.open());
        WindowHarness d(m_config.filePath(QStringLiteral("offer-%1").arg(resume)), m_receiver->urls(), true,
                        &journal);
        QCOMPARE(d.controller.unfinishedFiles(), 1);

        answerNextMessageBox(resume ? QStringLiteral("Resume") : QStringLiteral("Discard"));
        d.window.offerUnfinished();
        // The offer names what it offers, with its size, in words that count right.
        QVERIFY2(lastBox.text.contains(QStringLiteral("1 file (%1)").arg(Units::size(3 * 1024 * 1024 + 7))) &&
                     lastBox.text.contains(QFileInfo(file).fileName()),
                 qPrintable(lastBox.text));
        if (!resume) {
            QCOMPARE(d.controller.unfinishedFiles(), 0);
            QCOMPARE(d.window.model().rowCount(), 0);
            return;
        }
        QCOMPARE(d.window.model().rowCount(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(
            d.window.model().data(d.window.model().index(0, TransferTableModel::State)).toString(),
            QStringLiteral("done"), 60000);
        QVERIFY(TestFiles::sameContents(file, m_storage.filePath(QFileInfo(file).fileName())));
        QTRY_COMPARE_WITH_TIMEOUT(d.controller.unfinishedFiles(), 0, 30000);
    }

private:
    QTemporaryDir m_storage;
    QTemporaryDir m_source;
    QTemporaryDir m_config;
    std::unique_ptr<ReceiverProcess> m_receiver;
};

QTEST_MAIN(TestUiDesktop)
#include "tst_ui_desktop.moc"
