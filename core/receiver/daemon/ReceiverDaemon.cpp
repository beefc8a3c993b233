#include "ReceiverDaemon.h"

#include "AccessLog.h"
#include "AccessPolicy.h"
#include "HttpFrontEnd.h"
#include "LocalFolderStore.h"
#include "PeriodicTask.h"
#include "ProtocolService.h"
#include "ReceiverMetrics.h"

#include <QDateTime>
#include <QFile>
#include <QStringBuilder>
#include <cstdio>

namespace multilane {

namespace {

// The receiver's own messages (startup, failed requests, finished files, expiry) on stderr; like the
// access log, never waiting for a reader that does not read.
AccessLog &stderrLog()
{
    static AccessLog log(QStringLiteral("-"));
    return log;
}

void logLine(const QString &line)
{
    stderrLog().write(QDateTime::currentDateTime().toString(Qt::ISODateWithMs) % QLatin1Char(' ') % line);
}

} // namespace

ReceiverDaemon::ReceiverDaemon(ReceiverConfig config)
    : m_config(std::move(config))
{}

ReceiverDaemon::~ReceiverDaemon() = default;

std::optional<QString> ReceiverDaemon::openAccessLog()
{
    stderrLog().open();
    if (!m_config.accessLog)
        return std::nullopt;
    if (*m_config.accessLog == QLatin1String("-")) {
        m_accessLog = &stderrLog(); // one writer for stderr, so its lines never interleave
        return std::nullopt;
    }
    m_accessLogFile = std::make_unique<AccessLog>(*m_config.accessLog);
    if (auto problem = m_accessLogFile->open())
        return problem;
    m_accessLog = m_accessLogFile.get();
    return std::nullopt;
}

std::optional<QString> ReceiverDaemon::start()
{
    if (auto problem = openAccessLog())
        return problem;
    m_store = std::make_unique<LocalFolderStore>(m_config.storage);
    if (const auto problem = m_store->prepare())
        return problem->message;

    ProtocolService::Options serviceOptions;
    serviceOptions.access = AccessPolicy(m_config.tokens);
    serviceOptions.limits = m_config.limits;
    serviceOptions.limits.connectionsPerClient = m_config.connectionsPerClient();
    m_service = std::make_unique<ProtocolService>(*m_store, std::move(serviceOptions));
    m_metrics = std::make_unique<ReceiverMetrics>(m_store.get());

    HttpFrontEnd::Options frontEnd;
    frontEnd.maxConnections = m_config.maxConnections;
    frontEnd.idleTimeoutSeconds = int(m_config.idleTimeout.count());
    frontEnd.tls = m_config.tls;
    frontEnd.tokenId = [service = m_service.get()](const QByteArray &authorization) {
        return service->tokenId(authorization);
    };
    if (!m_config.quiet)
        frontEnd.log = logLine;
    if (AccessLog *accessLog = m_accessLog)
        frontEnd.accessLog = [accessLog](const QString &line) { accessLog->write(line); };
    frontEnd.metrics = m_metrics.get();
    frontEnd.metricsAddress = m_config.metricsAddress;
    frontEnd.metricsToken = m_config.metricsToken;
    m_frontEnd = std::make_unique<HttpFrontEnd>(*m_service, frontEnd);
    if (auto problem = m_frontEnd->start(m_config.listen))
        return problem;
    announce();
    startSweeping();
    return std::nullopt;
}

void ReceiverDaemon::announce() const
{
    for (const ListenAddress &bound : m_frontEnd->boundAddresses()) {
        const QString url =
            m_frontEnd->usesTls() ? QStringLiteral("https://") + bound.toString() : bound.url();
        std::printf("listening on %s\n", qPrintable(url));
    }
    // Clients that do not trust the certificate's issuer (a self-signed one) pin this value.
    if (m_frontEnd->usesTls())
        std::printf("certificate sha256 %s\n", qPrintable(m_frontEnd->certificateSha256()));
    if (const auto bound = m_frontEnd->boundMetricsAddress())
        std::printf("metrics on %s/metrics\n", qPrintable(bound->url()));
    std::fflush(stdout);
    if (m_config.quiet)
        return;
    logLine(QStringLiteral("storing into %1").arg(m_store->location()));
    if (m_config.tokens.isEmpty()) {
        logLine(QStringLiteral("warning: no --token-file, so anyone who can reach these ports may upload and "
                               "use the speed test; give a token file (docs/admin.md) unless the network is "
                               "trusted"));
        return;
    }
    logLine(QStringLiteral("%1 token(s) loaded; requests other than GET /v1/health need one")
                .arg(m_config.tokens.size()));
    if (QFile::permissions(m_config.tokenFile) & QFileDevice::ReadOther)
        logLine(QStringLiteral("warning: every user of this machine may read %1; chmod o-r it")
                    .arg(m_config.tokenFile));
}

void ReceiverDaemon::startSweeping()
{
    // At start and every minute: the sweep takes the locks a writer takes, so other receiver
    // processes on the same folder are safe.
    m_sweeper = std::make_unique<PeriodicTask>(
        std::chrono::minutes(1), [store = m_store.get(), metrics = m_metrics.get(),
                                  expireAfter = m_config.expireAfter, quiet = m_config.quiet] {
            const SweepReport report = store->sweepExpired(expireAfter, std::chrono::system_clock::now());
            metrics->countExpiredUploads(report.expiredUploads);
            for (const QString &line : report.lines) {
                if (!quiet)
                    logLine(line);
            }
        });
}

void ReceiverDaemon::reload()
{
    const bool quiet = m_config.quiet;
    if (m_accessLogFile) {
        const auto problem = m_accessLogFile->open();
        if (!quiet)
            logLine(problem ? *problem
                            : QStringLiteral("reopened the access log %1").arg(m_accessLogFile->target()));
    }
    // A renewed certificate (certbot's deploy hook runs `systemctl reload`) serves new connections
    // from now on; a bad file leaves the one in use, and says so whatever --quiet.
    if (m_frontEnd->usesTls()) {
        if (const auto problem = m_frontEnd->reloadTls())
            logLine(QStringLiteral("kept the TLS certificate in use: %1").arg(*problem));
        else if (!quiet)
            logLine(QStringLiteral("reloaded the TLS certificate; certificate sha256 %1")
                        .arg(m_frontEnd->certificateSha256()));
    }
}

void ReceiverDaemon::stop(int signal)
{
    const bool quiet = m_config.quiet;
    if (!quiet)
        logLine(QStringLiteral("stopping (signal %1)").arg(signal));
    if (const quint64 dropped = stderrLog().droppedLines())
        logLine(QStringLiteral("dropped %1 log lines while stderr was not being read").arg(dropped));
    if (!quiet && m_frontEnd->usesTls()) {
        const HttpFrontEnd::TlsHandshakes handshakes = m_frontEnd->tlsHandshakes();
        logLine(QStringLiteral("tls handshakes: %1 (%2 resumed)")
                    .arg(handshakes.completed)
                    .arg(handshakes.resumed));
    }
    m_frontEnd->stop();
}

} // namespace multilane
