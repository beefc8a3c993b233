// multilane-receiver: serves one storage folder on one or more HTTP ports until SIGINT/SIGTERM.
#include "AccessLog.h"
#include "ByteSize.h"
#include "ConfigFileArguments.h"
#include "DiskSpace.h"
#include "DurationText.h"
#include "HttpFrontEnd.h"
#include "ListenAddress.h"
#include "LocalFolderStore.h"
#include "PeriodicTask.h"
#include "ProtocolService.h"
#include "TokenFile.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QStringBuilder>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <pthread.h>

using namespace multilane;

namespace {

constexpr int ExitBadInput = 2;

int refuse(const QString &message)
{
    std::fprintf(stderr, "multilane-receiver: %s\n", qPrintable(message));
    return ExitBadInput;
}

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

// The first line of a token file, as the metrics token; the error says what to do.
std::optional<QByteArray> readToken(const QString &path, QString &error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        error = QStringLiteral("cannot read --metrics-token-file %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    const QByteArray token = file.readLine(4096).trimmed();
    if (token.isEmpty()) {
        error = QStringLiteral("--metrics-token-file %1 is empty; put the token on its first line").arg(path);
        return std::nullopt;
    }
    return token;
}

// A SIZE option (512M, 2G, …) that must be at least `minimum`; nullopt after printing why not.
std::optional<qint64> sizeOption(const QCommandLineParser &parser, const QCommandLineOption &option,
                                 qint64 minimum)
{
    const QString text = parser.value(option);
    const auto bytes = ByteSize::parse(text);
    if (!bytes || *bytes < minimum) {
        refuse(QStringLiteral("--%1 takes a size such as 512M or 2G (at least %2 bytes), not '%3'")
                   .arg(option.names().constFirst())
                   .arg(minimum)
                   .arg(text));
        return std::nullopt;
    }
    return bytes;
}

// A duration option the receiver keeps in whole seconds; nullopt for a bad or fractional one.
std::optional<std::chrono::seconds> wholeSeconds(const QString &text)
{
    const auto duration = DurationText::parse(text);
    if (!duration || duration->count() % 1000 != 0)
        return std::nullopt;
    return std::chrono::duration_cast<std::chrono::seconds>(*duration);
}

} // namespace

int main(int argc, char *argv[])
{
    // Block the stop signals before any thread exists (the store starts a hashing thread, the
    // servers many more), so only sigwait() below sees them.
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGINT);
    sigaddset(&stopSignals, SIGTERM);
    sigaddset(&stopSignals, SIGHUP); // reopens the access log (logrotate), reloads the certificate
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("multilane-receiver"));
    QCoreApplication::setApplicationVersion(ProtocolService::version());

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Receives files from the multilane client (and from curl -T) into a storage folder.\n\n"
        "Example:\n"
        "  multilane-receiver --storage /srv/inbox --listen 0.0.0.0:9101,9102,9103\n"
        "  curl -T report.pdf http://HOST:9101/v1/files/inbox/\n"
        "  multilane-receiver --storage /srv/inbox --listen 9101,9102 \\\n"
        "      --tls-cert /etc/letsencrypt/live/HOST/fullchain.pem --tls-key "
        "/etc/letsencrypt/live/HOST/privkey.pem"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption storageOption(
        QStringLiteral("storage"), QStringLiteral("Folder that receives the files (created if missing)."),
        QStringLiteral("DIR"));
    const QCommandLineOption listenOption(
        QStringLiteral("listen"),
        QStringLiteral(
            "Where to listen: [HOST:]PORT[,PORT...]; a bare port reuses the host before it, port 0 "
            "picks a free one. Repeatable. Default: 0.0.0.0:9101."),
        QStringLiteral("ADDRESSES"));
    const QCommandLineOption quietOption(QStringLiteral("quiet"),
                                         QStringLiteral("Log nothing but the listening addresses."));
    const QCommandLineOption expireOption(
        QStringLiteral("expire-after"),
        QStringLiteral("Remove unfinished uploads untouched for this long, and completion records this "
                       "old, e.g. 12h, 7d; 0 keeps them forever. Finished files are never removed. "
                       "Default: 7d."),
        QStringLiteral("DURATION"), QStringLiteral("7d"));
    const QCommandLineOption maxConnectionsOption(
        QStringLiteral("max-connections"),
        QStringLiteral("Open connections per listening address; more are answered 503 busy. Default: 256."),
        QStringLiteral("N"), QStringLiteral("256"));
    const QCommandLineOption idleTimeoutOption(
        QStringLiteral("idle-timeout"),
        QStringLiteral("Close a kept-alive connection that sends no request for this long, e.g. 10s. "
                       "Default: 10s."),
        QStringLiteral("DURATION"), QStringLiteral("10s"));
    const QCommandLineOption tlsCertOption(
        QStringLiteral("tls-cert"),
        QStringLiteral("Serve HTTPS on every address with this PEM certificate chain (e.g. certbot's "
                       "fullchain.pem). Needs --tls-key. SIGHUP reads both files again (after a renewal)."),
        QStringLiteral("FILE"));
    const QCommandLineOption tlsKeyOption(
        QStringLiteral("tls-key"), QStringLiteral("The PEM private key of --tls-cert (no passphrase)."),
        QStringLiteral("FILE"));
    const QCommandLineOption tokenFileOption(
        QStringLiteral("token-file"),
        QStringLiteral("Require 'Authorization: Bearer <token>' with one of the tokens in FILE (one per "
                       "line, optional id=, folder=, quota=; see docs/admin.md). Without it anyone who "
                       "can reach the ports may upload."),
        QStringLiteral("FILE"));
    const QCommandLineOption maxFileSizeOption(QStringLiteral("max-file-size"),
                                               QStringLiteral("Largest file accepted. Default: 1T."),
                                               QStringLiteral("SIZE"), QStringLiteral("1T"));
    const QCommandLineOption maxChunkSizeOption(
        QStringLiteral("max-chunk-size"),
        QStringLiteral("Largest chunk accepted (the client sends at most 64M). Default: 256M."),
        QStringLiteral("SIZE"), QStringLiteral("256M"));
    const QCommandLineOption diskReserveOption(
        QStringLiteral("disk-reserve"),
        QStringLiteral("Free space on the storage disk that uploads never use; new uploads that would "
                       "cut into it and chunk writes while below it get 507. Default: 512M."),
        QStringLiteral("SIZE"), QStringLiteral("512M"));
    const QCommandLineOption maxUnfinishedOption(
        QStringLiteral("max-unfinished"),
        QStringLiteral("Unfinished uploads a token (its folder) may have open at once. Default: 1000."),
        QStringLiteral("N"), QStringLiteral("1000"));
    const QCommandLineOption configOption(
        QStringLiteral("config"),
        QStringLiteral("Read settings from FILE first: 'key = value' lines whose keys are these long flags "
                       "without dashes (e.g. 'storage = /srv/inbox', 'quiet = true'); flags given on the "
                       "command line replace the file's."),
        QStringLiteral("FILE"));
    const QCommandLineOption accessLogOption(
        QStringLiteral("access-log"),
        QStringLiteral("Write one logfmt line per request to FILE, or to stderr with '-'; SIGHUP reopens "
                       "FILE. Default: '-', or none with --quiet."),
        QStringLiteral("FILE|-"));
    const QCommandLineOption metricsListenOption(
        QStringLiteral("metrics-listen"),
        QStringLiteral(
            "Serve GET /metrics (Prometheus) and /v1/health on this extra [HOST:]PORT only; a bare "
            "port means 127.0.0.1."),
        QStringLiteral("ADDRESS"));
    const QCommandLineOption metricsTokenOption(
        QStringLiteral("metrics-token-file"),
        QStringLiteral("Serve /metrics on the upload ports too, to requests with 'Authorization: Bearer "
                       "TOKEN', TOKEN being the file's first line (the metrics port then asks for it too)."),
        QStringLiteral("FILE"));
    // Every option, once: the parser and the config file both take them from here, so a flag
    // added to this list works in the file too.
    const QList<QCommandLineOption> options{
        storageOption,        listenOption,       quietOption,         expireOption,
        maxConnectionsOption, idleTimeoutOption,  tokenFileOption,     maxFileSizeOption,
        maxChunkSizeOption,   diskReserveOption,  maxUnfinishedOption, accessLogOption,
        metricsListenOption,  metricsTokenOption, tlsCertOption,       tlsKeyOption};
    parser.addOptions(options);
    parser.addOption(configOption);
    QStringList arguments = QCoreApplication::arguments();
    if (!parser.parse(arguments))
        return refuse(parser.errorText() + QStringLiteral(" (see --help)"));
    // Before --help and --version, so `--config FILE --version` checks a file without starting.
    if (parser.isSet(configOption)) {
        QStringList given;
        for (const QCommandLineOption &option : options) {
            if (parser.isSet(option))
                given += option.names();
        }
        const auto fromFile = ConfigFileArguments(options).read(parser.value(configOption), given);
        if (!fromFile.error.isEmpty())
            return refuse(fromFile.error);
        arguments = arguments.mid(0, 1) + fromFile.arguments + arguments.mid(1);
        if (!parser.parse(arguments))
            return refuse(
                parser.errorText() +
                QStringLiteral(" (in --config %1 or the command line)").arg(parser.value(configOption)));
    }
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(0);
    if (parser.isSet(QStringLiteral("version")))
        parser.showVersion();
    if (!parser.positionalArguments().isEmpty())
        return refuse(QStringLiteral("unexpected argument '%1' (see --help)")
                          .arg(parser.positionalArguments().first()));
    if (!parser.isSet(storageOption))
        return refuse(QStringLiteral("--storage DIR is required: the folder that receives the files"));

    QList<ListenAddress> addresses;
    const QStringList listenSpecs =
        parser.isSet(listenOption) ? parser.values(listenOption) : QStringList{QStringLiteral("9101")};
    for (const QString &spec : listenSpecs) {
        const auto parsed = ListenAddress::parseList(spec);
        if (!parsed.error.isEmpty())
            return refuse(parsed.error);
        addresses += parsed.addresses;
    }

    const auto expireAfter = wholeSeconds(parser.value(expireOption));
    if (!expireAfter)
        return refuse(QStringLiteral("--expire-after takes a duration such as 12h or 7d (0: never), not '%1'")
                          .arg(parser.value(expireOption)));

    bool numberOk = false;
    const int maxConnections = parser.value(maxConnectionsOption).toInt(&numberOk);
    if (!numberOk || maxConnections < 1 || maxConnections > 10000)
        return refuse(QStringLiteral("--max-connections takes a number from 1 to 10000, not '%1'")
                          .arg(parser.value(maxConnectionsOption)));
    const auto idleTimeout = wholeSeconds(parser.value(idleTimeoutOption));
    if (!idleTimeout || idleTimeout->count() < 1 || idleTimeout->count() > 3600)
        return refuse(QStringLiteral("--idle-timeout takes a duration from 1s to 1h, not '%1'")
                          .arg(parser.value(idleTimeoutOption)));

    if (parser.isSet(tlsCertOption) != parser.isSet(tlsKeyOption))
        return refuse(
            QStringLiteral("--tls-cert FILE and --tls-key FILE go together: give both for HTTPS, or "
                           "neither for HTTP"));
    std::optional<TlsFiles> tls;
    if (parser.isSet(tlsCertOption))
        tls = TlsFiles{QFileInfo(parser.value(tlsCertOption)).absoluteFilePath(),
                       QFileInfo(parser.value(tlsKeyOption)).absoluteFilePath()};

    ProtocolService::Options serviceOptions;
    ReceiverLimits &limits = serviceOptions.limits;
    const auto maxFileSize = sizeOption(parser, maxFileSizeOption, 1);
    const auto maxChunkSize = sizeOption(parser, maxChunkSizeOption, 1);
    const auto diskReserve = sizeOption(parser, diskReserveOption, 0);
    if (!maxFileSize || !maxChunkSize || !diskReserve)
        return ExitBadInput;
    limits.maxFileSize = *maxFileSize;
    limits.maxChunkSize = *maxChunkSize;
    limits.diskReserve = *diskReserve;
    limits.maxUnfinished = parser.value(maxUnfinishedOption).toLongLong(&numberOk);
    if (!numberOk || limits.maxUnfinished < 1)
        return refuse(QStringLiteral("--max-unfinished takes a number of at least 1, not '%1'")
                          .arg(parser.value(maxUnfinishedOption)));
    if (parser.isSet(tokenFileOption)) {
        const TokenFile::Result tokens = TokenFile::load(parser.value(tokenFileOption));
        if (!tokens.error.isEmpty())
            return refuse(tokens.error);
        serviceOptions.access = AccessPolicy(tokens.tokens);
    }

    std::optional<ListenAddress> metricsAddress;
    if (parser.isSet(metricsListenOption)) {
        const auto parsed =
            ListenAddress::parseList(parser.value(metricsListenOption), QStringLiteral("127.0.0.1"));
        if (!parsed.error.isEmpty())
            return refuse(QStringLiteral("--metrics-listen: ") + parsed.error);
        if (parsed.addresses.size() != 1)
            return refuse(QStringLiteral("--metrics-listen takes one [HOST:]PORT, not '%1'")
                              .arg(parser.value(metricsListenOption)));
        metricsAddress = parsed.addresses.first();
    }
    QByteArray metricsToken;
    if (parser.isSet(metricsTokenOption)) {
        QString problem;
        const auto token = readToken(parser.value(metricsTokenOption), problem);
        if (!token)
            return refuse(problem);
        metricsToken = *token;
    }

    const bool quiet = parser.isSet(quietOption);
    stderrLog().open();
    std::unique_ptr<AccessLog> accessLogFile;
    AccessLog *accessLog = nullptr;
    const QString accessTarget =
        parser.isSet(accessLogOption) ? parser.value(accessLogOption) : QStringLiteral("-");
    if (accessTarget != QLatin1String("-")) {
        accessLogFile = std::make_unique<AccessLog>(accessTarget);
        if (const auto problem = accessLogFile->open())
            return refuse(*problem);
        accessLog = accessLogFile.get();
    } else if (parser.isSet(accessLogOption) || !quiet) {
        accessLog = &stderrLog(); // one writer for stderr, so its lines never interleave
    }

    LocalFolderStore store(parser.value(storageOption));
    if (const auto problem = store.prepare())
        return refuse(problem->message);
    serviceOptions.freeSpace = DiskSpace::of(store.storageFolder());
    const bool tokensRequired = serviceOptions.access.requiresToken();
    const qsizetype tokenCount = serviceOptions.access.tokens().size();
    ProtocolService service(store, std::move(serviceOptions));
    ReceiverMetrics metrics(store.storageFolder());
    HttpFrontEnd::Options serverOptions;
    serverOptions.maxConnections = maxConnections;
    serverOptions.idleTimeoutSeconds = int(idleTimeout->count());
    serverOptions.tokenId = [&service](const QByteArray &authorization) {
        return service.tokenId(authorization);
    };
    serverOptions.tls = tls;
    if (!quiet)
        serverOptions.log = logLine;
    if (accessLog)
        serverOptions.accessLog = [accessLog](const QString &line) { accessLog->write(line); };
    serverOptions.metrics = &metrics;
    serverOptions.metricsAddress = metricsAddress;
    serverOptions.metricsToken = metricsToken;
    HttpFrontEnd server(service, serverOptions);

    if (const auto problem = server.start(addresses))
        return refuse(*problem);
    for (const ListenAddress &bound : server.boundAddresses()) {
        const QString url = server.usesTls() ? QStringLiteral("https://") + bound.toString() : bound.url();
        std::printf("listening on %s\n", qPrintable(url));
    }
    // Clients that do not trust the certificate's issuer (a self-signed one) pin this value.
    if (server.usesTls())
        std::printf("certificate sha256 %s\n", qPrintable(server.certificateSha256()));
    if (const auto bound = server.boundMetricsAddress())
        std::printf("metrics on %s/metrics\n", qPrintable(bound->url()));
    std::fflush(stdout);
    if (!quiet)
        logLine(QStringLiteral("storing into %1").arg(store.storageFolder()));
    if (!quiet && tokensRequired) {
        logLine(QStringLiteral("%1 token(s) loaded; requests other than GET /v1/health need one")
                    .arg(tokenCount));
        const QString tokenFile = parser.value(tokenFileOption);
        if (QFile::permissions(tokenFile) & QFileDevice::ReadOther)
            logLine(QStringLiteral("warning: every user of this machine may read %1; chmod o-r it")
                        .arg(tokenFile));
    } else if (!quiet)
        logLine(QStringLiteral("warning: no --token-file, so anyone who can reach these ports may upload "
                               "and use the speed test; give a token file (docs/admin.md) unless the "
                               "network is trusted"));

    // At start and every minute: the sweep takes the locks a writer takes, so other receiver
    // processes on the same folder are safe.
    UploadSweeper::Policy expiry;
    expiry.expireAfter = *expireAfter;
    const PeriodicTask sweeper(std::chrono::minutes(1), [&store, &metrics, expiry, quiet] {
        const QStringList removed = store.sweep(expiry, UploadSweeper::Clock::now());
        metrics.setExpiredUploads(store.expiredUploads());
        for (const QString &line : removed) {
            if (!quiet)
                logLine(line);
        }
    });

    int received = 0;
    while (sigwait(&stopSignals, &received) == 0 && received == SIGHUP) {
        if (accessLog && accessLog->target() != QLatin1String("-")) {
            const auto problem = accessLog->open();
            if (!quiet)
                logLine(problem ? *problem
                                : QStringLiteral("reopened the access log %1").arg(accessLog->target()));
        }
        // A renewed certificate (certbot's deploy hook runs `systemctl reload`) serves new
        // connections from now on; a bad file leaves the one in use, and says so whatever --quiet.
        if (server.usesTls()) {
            if (const auto problem = server.reloadTls())
                logLine(QStringLiteral("kept the TLS certificate in use: %1").arg(*problem));
            else if (!quiet)
                logLine(QStringLiteral("reloaded the TLS certificate; certificate sha256 %1")
                            .arg(server.certificateSha256()));
        }
    }
    if (!quiet)
        logLine(QStringLiteral("stopping (signal %1)").arg(received));
    if (const quint64 dropped = stderrLog().droppedLines())
        logLine(QStringLiteral("dropped %1 log lines while stderr was not being read").arg(dropped));
    if (!quiet && server.usesTls()) {
        const HttpFrontEnd::TlsHandshakes handshakes = server.tlsHandshakes();
        logLine(QStringLiteral("tls handshakes: %1 (%2 resumed)")
                    .arg(handshakes.completed)
                    .arg(handshakes.resumed));
    }
    server.stop();
    return 0;
}
