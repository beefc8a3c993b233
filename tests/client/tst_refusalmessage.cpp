// Receiver refusals become sentences that name the endpoint and say what to do.
#include "RefusalMessage.h"

#include <QTest>

using namespace multilane;

class TestRefusalMessage : public QObject {
    Q_OBJECT

    static ApiError error(int status, const QString &code, const QString &message,
                          const QJsonObject &extra = {})
    {
        ApiError e;
        e.httpStatus = status;
        e.code = code;
        e.message = message;
        e.details = extra;
        return e;
    }

private Q_SLOTS:
    void eachRefusalSaysWhatToDo_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QJsonObject>("details");
        QTest::addColumn<QStringList>("mustSay");
        QTest::newRow("bad token") << 401 << QStringLiteral("unauthorized") << QJsonObject()
                                   << QStringList{QStringLiteral("refused the token"),
                                                  QStringLiteral("--token")};
        QTest::newRow("outside the folder")
            << 403 << QStringLiteral("forbidden") << QJsonObject()
            << QStringList{QStringLiteral("token's own folder"), QStringLiteral("--dest")};
        QTest::newRow("quota") << 507 << QStringLiteral("quota_exceeded")
                               << QJsonObject{{QStringLiteral("quotaBytes"), 10LL << 30},
                                              {QStringLiteral("usedBytes"), 9LL << 30}}
                               << QStringList{QStringLiteral("quota is used up"), QStringLiteral("left")};
        QTest::newRow("disk full") << 507 << QStringLiteral("insufficient_storage") << QJsonObject()
                                   << QStringList{QStringLiteral("out of disk space"),
                                                  QStringLiteral("multilane resume")};
        QTest::newRow("too many uploads")
            << 429 << QStringLiteral("too_many_uploads") << QJsonObject()
            << QStringList{QStringLiteral("too many unfinished uploads"), QStringLiteral("multilane status")};
        QTest::newRow("anything else") << 500 << QStringLiteral("storage_error") << QJsonObject()
                                       << QStringList{QStringLiteral("recv-1: the receiver said so")};
    }
    void eachRefusalSaysWhatToDo()
    {
        QFETCH(int, status);
        QFETCH(QString, code);
        QFETCH(QJsonObject, details);
        QFETCH(QStringList, mustSay);
        const QString text = RefusalMessage::explain(
            error(status, code, QStringLiteral("the receiver said so"), details), QStringLiteral("recv-1"));
        QVERIFY2(text.startsWith(QLatin1String("recv-1")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("the receiver said so")), qPrintable(text)); // never hidden
        for (const QString &phrase : mustSay)
            QVERIFY2(text.contains(phrase), qPrintable(text));
    }

    void quotaFiguresAreExact()
    {
        const QString text = RefusalMessage::explain(
            error(507, QStringLiteral("quota_exceeded"), QStringLiteral("no"),
                  {{QStringLiteral("quotaBytes"), 4 << 20}, {QStringLiteral("usedBytes"), 3 << 20}}),
            QStringLiteral("e"));
        QVERIFY2(text.contains(QLatin1String("3.00 MiB of 4.00 MiB used, 1.00 MiB left")), qPrintable(text));
    }

    void diskFullIsResumableButNotRetried()
    {
        const ApiError full = error(507, QStringLiteral("insufficient_storage"), QStringLiteral("full"));
        QVERIFY(!full.isRetriable());
        QVERIFY(full.isWorthResumingLater());
        QVERIFY(!error(401, QStringLiteral("unauthorized"), {}).isRetriable());
        QVERIFY(RefusalMessage::isBadToken(error(401, QStringLiteral("unauthorized"), {})));
        QVERIFY(error(503, QStringLiteral("busy"), {}).isRetriable());
    }
};

QTEST_GUILESS_MAIN(TestRefusalMessage)
#include "tst_refusalmessage.moc"
