#include "ProtocolError.h"
#include "Result.h"

#include <QFile>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace multilane;

namespace {

QList<ProtocolErrorCode> allCodes()
{
    QList<ProtocolErrorCode> codes;
    for (int code = 0; code < ProtocolErrorCodeCount; ++code)
        codes.append(ProtocolErrorCode(code));
    return codes;
}

} // namespace

// The protocol's error codes (one enum, its wire names and statuses), the error object and Result.
class TestProtocolError : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void namesRoundTrip()
    {
        QSet<QByteArray> names;
        for (const ProtocolErrorCode code : allCodes()) {
            const QByteArray name = protocolErrorCodeName(code);
            QVERIFY2(QRegularExpression(QStringLiteral("^[a-z]+(_[a-z]+)*$"))
                         .match(QLatin1String(name))
                         .hasMatch(),
                     name.constData());
            QVERIFY2(!names.contains(name), name.constData());
            names.insert(name);
            QCOMPARE(protocolErrorCodeFromName(QByteArrayView(name)), std::optional(code));
            QCOMPARE(protocolErrorCodeFromName(QString::fromLatin1(name)), std::optional(code));
        }
        QCOMPARE(protocolErrorCodeFromName(QByteArrayView("no_such_thing")), std::nullopt);
        QCOMPARE(protocolErrorCodeFromName(QStringLiteral("Bad_Request")), std::nullopt);
        QCOMPARE(protocolErrorCodeFromName(QByteArrayView()), std::nullopt);
    }

    // docs/protocol.md's table is the contract: every row is a code of the enum with its status,
    // and every code of the enum has a row.
    void docsTableMatchesTheEnum()
    {
        QFile protocol(QStringLiteral(MULTILANE_SOURCE_DIR "/docs/protocol.md"));
        QVERIFY2(protocol.open(QIODevice::ReadOnly), qPrintable(protocol.fileName()));
        const QString text = QString::fromUtf8(protocol.readAll());
        static const QRegularExpression row(QStringLiteral("^\\| (\\d{3}) \\| `([a-z_]+)` \\|"),
                                            QRegularExpression::MultilineOption);
        QHash<QString, int> documented;
        for (auto match = row.globalMatch(text); match.hasNext();) {
            const auto found = match.next();
            documented.insert(found.captured(2), found.captured(1).toInt());
        }
        QCOMPARE(documented.size(), ProtocolErrorCodeCount);
        for (const ProtocolErrorCode code : allCodes()) {
            const QString name = QLatin1String(protocolErrorCodeName(code));
            QVERIFY2(documented.contains(name), qPrintable(name));
            QCOMPARE(documented.value(name), httpStatus(code));
        }
    }

    void errorObject()
    {
        ProtocolError error = ProtocolError::make(ProtocolErrorCode::QuotaExceeded, QStringLiteral("full"));
        error.figures.insert(QStringLiteral("quotaBytes"), 100);
        QCOMPARE(error.toJson(), (QJsonObject{{QStringLiteral("code"), QStringLiteral("quota_exceeded")},
                                              {QStringLiteral("message"), QStringLiteral("full")},
                                              {QStringLiteral("quotaBytes"), 100}}));
        ProtocolError incomplete =
            ProtocolError::make(ProtocolErrorCode::Incomplete, QStringLiteral("later"));
        incomplete.missing = {0, 2};
        QCOMPARE(incomplete.toJson().value(QStringLiteral("missing")).toArray(), (QJsonArray{0, 2}));
        // Only `incomplete` lists missing chunks, so an empty list is still a list there.
        QVERIFY(
            !ProtocolError::make(ProtocolErrorCode::Busy, {}).toJson().contains(QStringLiteral("missing")));
        QVERIFY(ProtocolError::make(ProtocolErrorCode::Incomplete, {})
                    .toJson()
                    .contains(QStringLiteral("missing")));
    }

    void resultHoldsValueOrError()
    {
        const Result<int> value = 7;
        QVERIFY(value.ok());
        QVERIFY(bool(value));
        QCOMPARE(value.value(), 7);
        QCOMPARE(value.valueOr(3), 7);

        const Result<int> error = ProtocolError::make(ProtocolErrorCode::NotFound, QStringLiteral("gone"));
        QVERIFY(!error.ok());
        QCOMPARE(error.error().code, ProtocolErrorCode::NotFound);
        QCOMPARE(error.error().message, QStringLiteral("gone"));
        QCOMPARE(error.valueOr(3), 3);

        // Any error type: the client may carry its own.
        struct Refusal {
            QString why;
        };
        const Result<QByteArray, Refusal> refused = Refusal{QStringLiteral("no")};
        QCOMPARE(refused.error().why, QStringLiteral("no"));
        Result<QByteArray, Refusal> accepted = QByteArray("yes");
        accepted.value().append('!');
        QCOMPARE(accepted.value(), QByteArray("yes!"));
    }
};

QTEST_GUILESS_MAIN(TestProtocolError)
#include "tst_protocolerror.moc"
