#include "HealthCheck.h"

#include "ReceiverApi.h"
#include "RefusalMessage.h"

#include <QNetworkAccessManager>

namespace multilane {

HealthCheck::HealthCheck(QNetworkAccessManager &manager, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
{}

void HealthCheck::check(const QList<Endpoint> &endpoints, int timeoutMs)
{
    m_problems = QList<std::optional<QString>>(endpoints.size());
    m_waiting = int(endpoints.size());
    if (m_waiting == 0) {
        Q_EMIT finished(m_problems);
        return;
    }
    for (qsizetype i = 0; i < endpoints.size(); ++i) {
        const Endpoint &endpoint = endpoints.at(i);
        QNetworkReply *reply =
            m_manager.get(ReceiverApi::request(endpoint, ReceiverApi::healthRoute(), timeoutMs));
        const bool plainHttp = endpoint.url.scheme() == QLatin1String("http");
        connect(reply, &QNetworkReply::finished, this, [this, reply, i, plainHttp, endpoint, timeoutMs] {
            // A TLS port closes a plain HTTP connection without a word.
            const bool closedUnanswered = reply->error() == QNetworkReply::RemoteHostClosedError;
            const ApiReply answer = ReceiverApi::read(reply);
            const QString name = endpoint.displayName();
            if (answer.error && answer.error->isTlsFailure()) {
                m_problems[i] = answer.error->message; // names the endpoint and the fix already
            } else if (answer.error) {
                m_problems[i] =
                    QStringLiteral("%1 does not answer (%2); check that multilane-receiver runs there "
                                   "and the address is right")
                        .arg(name, answer.error->message);
                if (plainHttp && closedUnanswered)
                    *m_problems[i] += QStringLiteral(" (a receiver started with --tls-cert needs https://)");
            } else if (answer.body.value(QLatin1String("protocol")).toInt() != ReceiverApi::ProtocolVersion) {
                m_problems[i] = QStringLiteral("%1 is not a multilane-receiver speaking protocol %2")
                                    .arg(name)
                                    .arg(ReceiverApi::ProtocolVersion);
            } else {
                checkToken(i, endpoint, timeoutMs);
                return;
            }
            settle();
        });
    }
}

void HealthCheck::checkToken(qsizetype index, const Endpoint &endpoint, int timeoutMs)
{
    // Health is open to everyone (load balancers); an empty probe needs the token like every
    // other route, so a wrong token is said here, before any file is touched.
    QNetworkReply *reply = m_manager.get(
        ReceiverApi::request(endpoint, ReceiverApi::probeRoute(), timeoutMs, QStringLiteral("bytes=0")));
    connect(reply, &QNetworkReply::finished, this, [this, reply, index, name = endpoint.displayName()] {
        const ApiReply answer = ReceiverApi::read(reply);
        if (answer.error && (answer.error->httpStatus == 401 || answer.error->httpStatus == 403))
            m_problems[index] = RefusalMessage::explain(*answer.error, name);
        settle();
    });
}

void HealthCheck::settle()
{
    if (--m_waiting == 0)
        Q_EMIT finished(m_problems);
}

} // namespace multilane
