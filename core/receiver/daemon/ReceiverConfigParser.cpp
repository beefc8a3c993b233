#include "ReceiverConfigParser.h"

#include "ByteSize.h"
#include "ConfigFileArguments.h"
#include "DurationText.h"
#include "ProtocolNames.h"
#include "ProtocolService.h"
#include "TokenFile.h"

#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>

namespace multilane {

namespace {

using Outcome = ReceiverConfigParser::Outcome;

// "1T", "256M": a default as --help shows it (the largest binary unit that divides it).
QString sizeText(qint64 bytes)
{
    for (const auto &[shift, unit] : {std::pair{40, 'T'}, {30, 'G'}, {20, 'M'}, {10, 'K'}}) {
        if (bytes != 0 && bytes % (qint64(1) << shift) == 0)
            return QString::number(bytes >> shift) + QLatin1Char(unit);
    }
    return QString::number(bytes);
}

// "7d", "10s": a default as --help shows it.
QString durationText(std::chrono::seconds duration)
{
    const qint64 seconds = duration.count();
    for (const auto &[length, unit] :
         {std::pair{qint64(86400), 'd'}, {qint64(3600), 'h'}, {qint64(60), 'm'}}) {
        if (seconds != 0 && seconds % length == 0)
            return QString::number(seconds / length) + QLatin1Char(unit);
    }
    return QString::number(seconds) + QLatin1Char('s');
}

QCommandLineOption option(const char *name, const QString &description, const char *valueName = nullptr)
{
    return valueName ? QCommandLineOption(QLatin1String(name), description, QLatin1String(valueName))
                     : QCommandLineOption(QLatin1String(name), description);
}

// The receiver's options, each once: the parser and the config file both take them from here, so
// a flag added here works in the file too. Help texts show the defaults of ReceiverConfig.
struct Options {
    // Every option but --config, in the order --help lists them.
    QList<QCommandLineOption> configurable() const;

    const ReceiverConfig defaults{};
    const QCommandLineOption storage =
        option("storage", QStringLiteral("Folder that receives the files (created if missing)."), "DIR");
    const QCommandLineOption listen =
        option("listen",
               QStringLiteral("Where to listen: [HOST:]PORT[,PORT...]; a bare port reuses the host before "
                              "it, port 0 picks a free one. Repeatable. Default: %1.")
                   .arg(defaults.listen.constFirst().toString()),
               "ADDRESSES");
    const QCommandLineOption quiet =
        option("quiet", QStringLiteral("Log nothing but the listening addresses."));
    const QCommandLineOption expireAfter =
        option("expire-after",
               QStringLiteral("Remove unfinished uploads untouched for this long, and completion "
                              "records this old, e.g. 12h, 7d; 0 keeps them forever. Finished files "
                              "are never removed. Default: %1.")
                   .arg(durationText(defaults.expireAfter)),
               "DURATION");
    const QCommandLineOption maxConnections =
        option("max-connections",
               QStringLiteral("Open connections per listening address; more are answered 503 busy. "
                              "Default: %1.")
                   .arg(defaults.maxConnections),
               "N");
    const QCommandLineOption clientConnections =
        option("client-connections",
               QStringLiteral("Connections one client may open to each listening address, announced by GET "
                              "/v1/health to clients that tune their connection count. Default: a quarter "
                              "of --max-connections (%1).")
                   .arg(defaults.connectionsPerClient()),
               "N");
    const QCommandLineOption idleTimeout =
        option("idle-timeout",
               QStringLiteral("Close a kept-alive connection that sends no request for this long, e.g. "
                              "10s. Default: %1.")
                   .arg(durationText(defaults.idleTimeout)),
               "DURATION");
    const QCommandLineOption tlsCert =
        option("tls-cert",
               QStringLiteral("Serve HTTPS on every address with this PEM certificate chain (e.g. certbot's "
                              "fullchain.pem). Needs --tls-key. SIGHUP reads both files again (after a "
                              "renewal)."),
               "FILE");
    const QCommandLineOption tlsKey =
        option("tls-key", QStringLiteral("The PEM private key of --tls-cert (no passphrase)."), "FILE");
    const QCommandLineOption tokenFile =
        option("token-file",
               QStringLiteral("Require 'Authorization: Bearer <token>' with one of the tokens in FILE (one "
                              "per line, optional id=, folder=, quota=; see docs/admin.md). Without it "
                              "anyone who can reach the ports may upload."),
               "FILE");
    const QCommandLineOption maxFileSize = option(
        "max-file-size",
        QStringLiteral("Largest file accepted. Default: %1.").arg(sizeText(defaults.limits.maxFileSize)),
        "SIZE");
    const QCommandLineOption maxChunkSize =
        option("max-chunk-size",
               QStringLiteral("Largest chunk accepted (the client sends at most 64M). Default: %1.")
                   .arg(sizeText(defaults.limits.maxChunkSize)),
               "SIZE");
    const QCommandLineOption diskReserve =
        option("disk-reserve",
               QStringLiteral("Free space on the storage disk that uploads never use; new uploads that "
                              "would cut into it and chunk writes while below it get 507. Default: %1.")
                   .arg(sizeText(defaults.limits.diskReserve)),
               "SIZE");
    const QCommandLineOption maxUnfinished =
        option("max-unfinished",
               QStringLiteral("Unfinished uploads a token (its folder) may have open at once. "
                              "Default: %1.")
                   .arg(defaults.limits.maxUnfinished),
               "N");
    const QCommandLineOption config =
        option("config",
               QStringLiteral("Read settings from FILE first: 'key = value' lines whose keys are these long "
                              "flags without dashes (e.g. 'storage = /srv/inbox', 'quiet = true'); flags "
                              "given on the command line replace the file's."),
               "FILE");
    const QCommandLineOption accessLog =
        option("access-log",
               QStringLiteral("Write one logfmt line per request to FILE, or to stderr with '-'; SIGHUP "
                              "reopens FILE. Default: '-', or none with --quiet."),
               "FILE|-");
    const QCommandLineOption metricsListen =
        option("metrics-listen",
               QStringLiteral("Serve GET /metrics (Prometheus) and /v1/health on this extra "
                              "[HOST:]PORT only; a bare port means 127.0.0.1."),
               "ADDRESS");
    const QCommandLineOption metricsTokenFile =
        option("metrics-token-file",
               QStringLiteral("Serve /metrics on the upload ports too, to requests with "
                              "'Authorization: Bearer TOKEN', TOKEN being the file's first line "
                              "(the metrics port then asks for it too)."),
               "FILE");
};

QList<QCommandLineOption> Options::configurable() const
{
    return {storage,           listen,        quiet,     expireAfter,   maxConnections,
            clientConnections, idleTimeout,   tokenFile, maxFileSize,   maxChunkSize,
            diskReserve,       maxUnfinished, accessLog, metricsListen, metricsTokenFile,
            tlsCert,           tlsKey};
}

void describe(const Options &options, QCommandLineParser &parser)
{
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
    parser.addOptions(options.configurable());
    parser.addOption(options.config);
}

// Parses the command line and, with --config, the file's lines before it; the message on failure.
std::optional<QString> parseArguments(const Options &options, QCommandLineParser &parser,
                                      QStringList arguments)
{
    if (!parser.parse(arguments))
        return parser.errorText() + QStringLiteral(" (see --help)");
    if (!parser.isSet(options.config))
        return std::nullopt;
    QStringList given;
    for (const QCommandLineOption &option : options.configurable()) {
        if (parser.isSet(option))
            given += option.names();
    }
    const auto fromFile =
        ConfigFileArguments(options.configurable()).read(parser.value(options.config), given);
    if (!fromFile.error.isEmpty())
        return fromFile.error;
    arguments = arguments.mid(0, 1) + fromFile.arguments + arguments.mid(1);
    if (!parser.parse(arguments))
        return parser.errorText() +
               QStringLiteral(" (in --config %1 or the command line)").arg(parser.value(options.config));
    return std::nullopt;
}

QString takesNot(const QCommandLineOption &option, const QString &takes, const QString &value)
{
    return QStringLiteral("--%1 takes %2, not '%3'").arg(option.names().constFirst(), takes, value);
}

// A whole-number option in [minimum, maximum], into `number` when it is set; `takes` says what it
// takes, for the message.
template<typename Number>
std::optional<QString> readNumber(const QCommandLineParser &parser, const QCommandLineOption &option,
                                  qint64 minimum, qint64 maximum, const QString &takes, Number &number)
{
    if (!parser.isSet(option))
        return std::nullopt;
    bool ok = false;
    const qint64 value = parser.value(option).toLongLong(&ok);
    if (!ok || value < minimum || value > maximum)
        return takesNot(option, takes, parser.value(option));
    number = Number(value);
    return std::nullopt;
}

// A duration option the receiver keeps in whole seconds ("1.5h" is, "0.5s" is not), likewise.
std::optional<QString> readSeconds(const QCommandLineParser &parser, const QCommandLineOption &option,
                                   std::chrono::milliseconds minimum, std::chrono::milliseconds maximum,
                                   const QString &takes, std::chrono::seconds &seconds)
{
    if (!parser.isSet(option))
        return std::nullopt;
    const auto duration = DurationText::parse(parser.value(option));
    if (!duration || duration->count() % 1000 != 0 || *duration < minimum || *duration > maximum)
        return takesNot(option, takes, parser.value(option));
    seconds = std::chrono::duration_cast<std::chrono::seconds>(*duration);
    return std::nullopt;
}

// Each step reads a few options into the config, or says what is wrong with one of them.
using Step = std::optional<QString> (*)(const Options &, const QCommandLineParser &, ReceiverConfig &);

std::optional<QString> readPlaces(const Options &options, const QCommandLineParser &parser,
                                  ReceiverConfig &config)
{
    if (!parser.positionalArguments().isEmpty())
        return QStringLiteral("unexpected argument '%1' (see --help)")
            .arg(parser.positionalArguments().first());
    if (!parser.isSet(options.storage))
        return QStringLiteral("--storage DIR is required: the folder that receives the files");
    config.storage = parser.value(options.storage);
    if (!parser.isSet(options.listen))
        return std::nullopt;
    config.listen.clear();
    for (const QString &spec : parser.values(options.listen)) {
        const auto parsed = ListenAddress::parseList(spec);
        if (!parsed.error.isEmpty())
            return parsed.error;
        config.listen += parsed.addresses;
    }
    return std::nullopt;
}

std::optional<QString> readConnections(const Options &options, const QCommandLineParser &parser,
                                       ReceiverConfig &config)
{
    using namespace std::chrono_literals;
    if (auto problem =
            readSeconds(parser, options.expireAfter, 0s, std::chrono::milliseconds::max(),
                        QStringLiteral("a duration such as 12h or 7d (0: never)"), config.expireAfter))
        return problem;
    if (auto problem = readNumber(parser, options.maxConnections, 1, 10000,
                                  QStringLiteral("a number from 1 to 10000"), config.maxConnections))
        return problem;
    if (auto problem = readNumber(parser, options.clientConnections, 1, 10000,
                                  QStringLiteral("a number from 1 to 10000"), config.clientConnections))
        return problem;
    return readSeconds(parser, options.idleTimeout, 1s, 1h, QStringLiteral("a duration from 1s to 1h"),
                       config.idleTimeout);
}

std::optional<QString> readTls(const Options &options, const QCommandLineParser &parser,
                               ReceiverConfig &config)
{
    if (parser.isSet(options.tlsCert) != parser.isSet(options.tlsKey))
        return QStringLiteral(
            "--tls-cert FILE and --tls-key FILE go together: give both for HTTPS, or neither "
            "for HTTP");
    if (parser.isSet(options.tlsCert))
        config.tls = TlsFiles{QFileInfo(parser.value(options.tlsCert)).absoluteFilePath(),
                              QFileInfo(parser.value(options.tlsKey)).absoluteFilePath()};
    return std::nullopt;
}

// A SIZE option (512M, 2G, …) of at least `minimum` bytes, into `bytes` when it is set.
std::optional<QString> readSize(const QCommandLineParser &parser, const QCommandLineOption &option,
                                qint64 minimum, qint64 &bytes)
{
    if (!parser.isSet(option))
        return std::nullopt;
    const QString text = parser.value(option);
    const auto parsed = ByteSize::parse(text);
    if (!parsed || *parsed < minimum)
        return takesNot(option, QStringLiteral("a size such as 512M or 2G (at least %1 bytes)").arg(minimum),
                        text);
    bytes = *parsed;
    return std::nullopt;
}

std::optional<QString> readLimits(const Options &options, const QCommandLineParser &parser,
                                  ReceiverConfig &config)
{
    ReceiverLimits &limits = config.limits;
    if (auto problem = readSize(parser, options.maxFileSize, 1, limits.maxFileSize))
        return problem;
    if (auto problem = readSize(parser, options.maxChunkSize, 1, limits.maxChunkSize))
        return problem;
    if (auto problem = readSize(parser, options.diskReserve, 0, limits.diskReserve))
        return problem;
    return readNumber(parser, options.maxUnfinished, 1, std::numeric_limits<qint64>::max(),
                      QStringLiteral("a number of at least 1"), limits.maxUnfinished);
}

std::optional<QString> readTokens(const Options &options, const QCommandLineParser &parser,
                                  ReceiverConfig &config)
{
    if (!parser.isSet(options.tokenFile))
        return std::nullopt;
    const TokenFile::Result tokens = TokenFile::load(parser.value(options.tokenFile));
    if (!tokens.error.isEmpty())
        return tokens.error;
    config.tokenFile = parser.value(options.tokenFile);
    config.tokens = tokens.tokens;
    return std::nullopt;
}

// The first line of a token file, as the metrics token.
Result<QByteArray, QString> readMetricsToken(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read --metrics-token-file %1: %2").arg(path, file.errorString());
    const QByteArray token = file.readLine(4096).trimmed();
    if (token.isEmpty())
        return QStringLiteral("--metrics-token-file %1 is empty; put the token on its first line").arg(path);
    return token;
}

std::optional<QString> readMetrics(const Options &options, const QCommandLineParser &parser,
                                   ReceiverConfig &config)
{
    if (parser.isSet(options.metricsListen)) {
        const QString spec = parser.value(options.metricsListen);
        const auto parsed = ListenAddress::parseList(spec, QStringLiteral("127.0.0.1"));
        if (!parsed.error.isEmpty())
            return QStringLiteral("--metrics-listen: ") + parsed.error;
        if (parsed.addresses.size() != 1)
            return QStringLiteral("--metrics-listen takes one [HOST:]PORT, not '%1'").arg(spec);
        config.metricsAddress = parsed.addresses.first();
    }
    if (parser.isSet(options.metricsTokenFile)) {
        const auto token = readMetricsToken(parser.value(options.metricsTokenFile));
        if (!token)
            return token.error();
        config.metricsToken = token.value();
    }
    return std::nullopt;
}

std::optional<QString> readLogging(const Options &options, const QCommandLineParser &parser,
                                   ReceiverConfig &config)
{
    config.quiet = parser.isSet(options.quiet);
    if (parser.isSet(options.accessLog))
        config.accessLog = parser.value(options.accessLog);
    else if (config.quiet)
        config.accessLog.reset();
    return std::nullopt;
}

Outcome refused(const QString &message)
{
    return {Outcome::Action::Refuse, {}, message};
}

} // namespace

ReceiverConfigParser::Outcome ReceiverConfigParser::parse(const QStringList &arguments)
{
    const Options options;
    QCommandLineParser parser;
    describe(options, parser);
    // Before --help and --version, so `--config FILE --version` checks a file without starting.
    if (const auto problem = parseArguments(options, parser, arguments))
        return refused(*problem);
    if (parser.isSet(QStringLiteral("help")))
        return {Outcome::Action::ShowHelp, {}, parser.helpText()};
    if (parser.isSet(QStringLiteral("version")))
        return {Outcome::Action::ShowVersion,
                {},
                QLatin1String(Protocol::ServiceName) + QLatin1Char(' ') + ProtocolService::version() +
                    QLatin1Char('\n')};
    ReceiverConfig config = options.defaults;
    for (const Step step :
         {readPlaces, readConnections, readTls, readLimits, readTokens, readMetrics, readLogging}) {
        if (const auto problem = step(options, parser, config))
            return refused(*problem);
    }
    return {Outcome::Action::Run, config, {}};
}

} // namespace multilane
