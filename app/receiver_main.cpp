// multilane-receiver: serves one storage folder on one or more HTTP ports until SIGINT/SIGTERM.
#include "DurationText.h"
#include "ListenAddress.h"
#include "LocalFolderStore.h"
#include "PeriodicTask.h"
#include "ReceiverServer.h"
#include "ReceiverService.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QMutex>
#include <csignal>
#include <cstdio>
#include <pthread.h>

using namespace multilane;

namespace {

constexpr int ExitBadInput = 2;

int refuse(const QString &message)
{
    std::fprintf(stderr, "multilane-receiver: %s\n", qPrintable(message));
    return ExitBadInput;
}

void logLine(const QString &line)
{
    static QMutex mutex; // server threads log concurrently
    const QMutexLocker locker(&mutex);
    const QString stamp = QDateTime::currentDateTime().toString(Qt::ISODateWithMs);
    std::fprintf(stderr, "%s %s\n", qPrintable(stamp), qPrintable(line));
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
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("multilane-receiver"));
    QCoreApplication::setApplicationVersion(ReceiverService::version());

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
                       "fullchain.pem). Needs --tls-key."),
        QStringLiteral("FILE"));
    const QCommandLineOption tlsKeyOption(
        QStringLiteral("tls-key"), QStringLiteral("The PEM private key of --tls-cert (no passphrase)."),
        QStringLiteral("FILE"));
    parser.addOptions({storageOption, listenOption, quietOption, expireOption, maxConnectionsOption,
                       idleTimeoutOption, tlsCertOption, tlsKeyOption});
    if (!parser.parse(QCoreApplication::arguments()))
        return refuse(parser.errorText() + QStringLiteral(" (see --help)"));
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

    const auto expireAfter = DurationText::parse(parser.value(expireOption));
    if (!expireAfter)
        return refuse(QStringLiteral("--expire-after takes a duration such as 12h or 7d (0: never), not '%1'")
                          .arg(parser.value(expireOption)));

    bool numberOk = false;
    const int maxConnections = parser.value(maxConnectionsOption).toInt(&numberOk);
    if (!numberOk || maxConnections < 1 || maxConnections > 10000)
        return refuse(QStringLiteral("--max-connections takes a number from 1 to 10000, not '%1'")
                          .arg(parser.value(maxConnectionsOption)));
    const auto idleTimeout = DurationText::parse(parser.value(idleTimeoutOption));
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

    LocalFolderStore store(parser.value(storageOption));
    if (const auto problem = store.prepare())
        return refuse(problem->message);
    ReceiverService service(store);
    ReceiverServer::Options options;
    options.maxConnections = maxConnections;
    options.idleTimeoutSeconds = int(idleTimeout->count());
    options.tls = tls;
    const bool quiet = parser.isSet(quietOption);
    if (!quiet)
        options.log = logLine;
    ReceiverServer server(service, options);

    if (const auto problem = server.start(addresses))
        return refuse(*problem);
    for (const ListenAddress &bound : server.boundAddresses()) {
        const QString url = server.usesTls() ? QStringLiteral("https://") + bound.toString() : bound.url();
        std::printf("listening on %s\n", qPrintable(url));
    }
    // Clients that do not trust the certificate's issuer (a self-signed one) pin this value.
    if (server.usesTls())
        std::printf("certificate sha256 %s\n", qPrintable(server.certificateSha256()));
    std::fflush(stdout);
    if (!quiet)
        logLine(QStringLiteral("storing into %1").arg(store.storageFolder()));

    // At start and every minute: the sweep takes the locks a writer takes, so other receiver
    // processes on the same folder are safe.
    UploadSweeper::Policy expiry;
    expiry.expireAfter = *expireAfter;
    const PeriodicTask sweeper(std::chrono::minutes(1), [&store, expiry, quiet] {
        const QStringList removed = store.sweep(expiry, UploadSweeper::Clock::now());
        for (const QString &line : removed) {
            if (!quiet)
                logLine(line);
        }
    });

    int received = 0;
    sigwait(&stopSignals, &received);
    if (!quiet) {
        logLine(QStringLiteral("stopping (signal %1)").arg(received));
        if (server.usesTls()) {
            const ReceiverServer::TlsHandshakes handshakes = server.tlsHandshakes();
            logLine(QStringLiteral("tls handshakes: %1 (%2 resumed)")
                        .arg(handshakes.completed)
                        .arg(handshakes.resumed));
        }
    }
    server.stop();
    return 0;
}
