#include "CommandLine.h"

#include "DurationText.h"

#include "ByteSize.h"
#include "S3RunSetup.h"
#include "UploadPath.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QProcessEnvironment>

namespace multilane::CommandLine {

QString mainHelp()
{
    return QStringLiteral(
        "Usage: multilane <command> [options]\n"
        "\n"
        "Multilane sends many files and many chunks at once over many connections to one or more\n"
        "multilane-receiver endpoints, or to the gateways of an S3 bucket (--s3), so uploads fill the\n"
        "link instead of one TCP window.\n"
        "\n"
        "Commands:\n"
        "  upload     send files and folders (multilane upload --help for its options)\n"
        "  resume     continue every unfinished upload (after Ctrl-C, a crash or a reboot)\n"
        "  status     list unfinished uploads (--json for scripts)\n"
        "  probe      measure the link to the endpoints and show the chunk size it calls for\n"
        "  speedtest  upload throw-away data over one connection, then tuned over many: the gain\n"
        "  help       show this text\n"
        "  version    show the version\n"
        "\n"
        "Examples:\n"
        "  multilane upload --endpoint http://recv:9101 --endpoint http://recv:9102 ~/video.mov ~/photos/\n"
        "  multilane upload --s3 s3://bucket/backups/ --endpoint https://gw1:7480 --endpoint "
        "https://gw2:7480 \\\n"
        "                   ~/video.mov   (S3: AWS, Ceph RGW, MinIO; keys as aws-cli finds them)\n");
}

static QString uploadHelp(const QCommandLineParser &parser)
{
    QString text = parser.helpText();
    text.replace(QLatin1String("[options]"), QLatin1String("upload [options]"));
    return text +
           QStringLiteral(
               "\nExit codes: 0 every file arrived verified (or was skipped as identical), 1 some file "
               "failed,\n"
               "2 bad usage (also: no S3 keys found).\n"
               "\nExamples:\n"
               "  multilane upload --endpoint http://recv:9101 --endpoint http://recv:9102 \\\n"
               "                   --endpoint http://recv:9103 --connections 12 ~/video.mov ~/photos/\n"
               "  multilane upload --endpoints-file endpoints.json --dest inbox --json report.pdf > "
               "events.jsonl\n"
               "\nAn endpoints file holds one URL per line, or\n"
               "  "
               "{\"endpoints\":[{\"url\":\"http://"
               "recv:9101\",\"token\":\"…\",\"weight\":1,\"maxConnections\":16}]}\n"
               "(maxConnections caps one endpoint; without it the receiver's own limit holds)\n"
               "and an https:// endpoint may add \"caFile\":\"cert.pem\" (read next to the endpoints "
               "file) or\n\"pinSha256\":\"<64 hex digits>\" (see multilane-receiver's 'certificate "
               "sha256' line).\n"
               "\nS3 (AWS S3, Ceph RADOS Gateway, MinIO): --s3 s3://bucket/folder/ sends there; each "
               "--endpoint\n"
               "is then a gateway of that store (https://gw1:7480; the parts of one file spread over all of\n"
               "them); without --endpoint, AWS_ENDPOINT_URL or the profile's endpoint_url, else AWS's "
               "endpoint\n"
               "for the region. Keys as aws-cli finds them, never on the command line: AWS_ACCESS_KEY_ID,\n"
               "AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), or a profile of ~/.aws/credentials "
               "(--profile\n"
               "or AWS_PROFILE, else [default]); AWS_CA_BUNDLE is trusted for https. --dest adds a folder\n"
               "below the prefix. The journal keeps each upload's id and parts: 'multilane resume' sends "
               "only\n"
               "what the bucket lacks.\n"
               "  AWS_PROFILE=backup multilane upload --s3 s3://my-bucket/photos/ --region eu-west-1 "
               "~/photos/\n");
}

// What --s3 and its options ask for; nullopt and no error when --s3 is not given.
struct S3Options {
    QCommandLineOption s3{QStringLiteral("s3"),
                          QStringLiteral("Send to this S3 bucket and folder, e.g. s3://bucket/backups/; each "
                                         "--endpoint is then a gateway of it (see below)."),
                          QStringLiteral("s3://BUCKET/PREFIX/")};
    QCommandLineOption region{QStringLiteral("region"),
                              QStringLiteral("S3: the bucket's region (default: AWS_REGION, the profile's "
                                             "region, us-east-1)."),
                              QStringLiteral("REGION")};
    QCommandLineOption addressing{QStringLiteral("addressing"),
                                  QStringLiteral("S3: how the bucket is named in URLs: path (gw/bucket/key), "
                                                 "virtual (bucket.gw/key), or auto (default: virtual for "
                                                 "amazonaws.com, path elsewhere)."),
                                  QStringLiteral("path|virtual|auto")};
    QCommandLineOption profile{QStringLiteral("profile"),
                               QStringLiteral("S3: take the keys from this profile of ~/.aws/credentials or "
                                              "~/.aws/config (as aws --profile)."),
                               QStringLiteral("NAME")};
    QList<QCommandLineOption> all() const { return {s3, region, addressing, profile}; }

    // Reads them into `spec`; returns a usage error.
    std::optional<QString> read(const QCommandLineParser &parser, S3TargetSpec &spec) const
    {
        if (!parser.isSet(s3)) {
            for (const QCommandLineOption &option : {region, addressing, profile}) {
                if (parser.isSet(option))
                    return QStringLiteral("--%1 is for S3 targets: add --s3 s3://bucket/folder/")
                        .arg(option.names().constFirst());
            }
            return std::nullopt;
        }
        spec.url = parser.value(s3).trimmed();
        spec.region = parser.value(region).trimmed();
        spec.profile = parser.value(profile).trimmed();
        if (parser.isSet(addressing)) {
            const std::optional<S3Addressing> style =
                s3AddressingFromName(parser.value(addressing).trimmed());
            if (!style)
                return QStringLiteral("--addressing takes path, virtual or auto, not '%1'")
                    .arg(parser.value(addressing));
            spec.addressing = *style;
        }
        if (parser.isSet(profile) && spec.profile.isEmpty())
            return QStringLiteral("--profile needs a profile name, as in ~/.aws/credentials");
        return std::nullopt;
    }

    // The S3 target with the rest of the request (gateways, the command, a token); a usage error.
    std::optional<QString> check(const UploadRequest &request, const QString &command, bool tokenGiven) const
    {
        if (!request.s3.isSet())
            return std::nullopt;
        if (command != QLatin1String("upload"))
            return QStringLiteral(
                       "%1 measures multilane-receiver endpoints (it uploads throw-away data to their "
                       "/v1/discard); an S3 gateway has nothing like it. 'multilane upload --s3 …' finds its "
                       "connection count by itself while it sends")
                .arg(command);
        if (const auto problem = S3RunSetup::targetProblem(request.s3, request.endpoints))
            return QStringLiteral("--s3: ") + *problem;
        if (tokenGiven)
            return QStringLiteral("--token is for multilane-receiver endpoints; S3 keys come from "
                                  "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or a profile (--profile)");
        return std::nullopt;
    }
};

static Result usageError(const QString &message)
{
    Result result;
    result.command = Command::Upload;
    result.error = message + QStringLiteral("\nRun 'multilane upload --help' for the options.");
    return result;
}

bool isCommand(const QString &word)
{
    static const QStringList commands{QStringLiteral("upload"),    QStringLiteral("resume"),
                                      QStringLiteral("status"),    QStringLiteral("probe"),
                                      QStringLiteral("speedtest"), QStringLiteral("help"),
                                      QStringLiteral("version")};
    return word.startsWith(QLatin1Char('-')) || commands.contains(word);
}

Result parse(const QStringList &arguments)
{
    Result result;
    if (arguments.size() < 2 || arguments.at(1) == QLatin1String("help") ||
        arguments.at(1) == QLatin1String("--help") || arguments.at(1) == QLatin1String("-h")) {
        result.helpText = mainHelp();
        return result;
    }
    if (arguments.at(1) == QLatin1String("version") || arguments.at(1) == QLatin1String("--version")) {
        result.command = Command::Version;
        return result;
    }
    const QString command = arguments.at(1);
    if (!isCommand(command) || command.startsWith(QLatin1Char('-'))) {
        result.error = QStringLiteral("unknown command '%1'\n\n").arg(command) + mainHelp();
        return result;
    }

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Send files and folders to multilane-receiver endpoints."));
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("Show this help."));
    const QCommandLineOption endpoint(
        QStringLiteral("endpoint"),
        QStringLiteral("A receiver URL, e.g. http://recv:9101 (with --s3: a gateway, https://gw1:7480). "
                       "Repeat for several."),
        QStringLiteral("URL"));
    const QCommandLineOption endpointsFile(
        QStringLiteral("endpoints-file"),
        QStringLiteral("Read endpoints from FILE (one URL per line, or JSON)."), QStringLiteral("FILE"));
    const QCommandLineOption connections(QStringLiteral("connections"),
                                         QStringLiteral("Connections in total, fixed (default: self-tuned)."),
                                         QStringLiteral("N"));
    const QCommandLineOption chunkSize(
        QStringLiteral("chunk-size"),
        QStringLiteral("Chunk size, e.g. 8M or 512K, or 'auto' (default; 8M until the link probe lands)."),
        QStringLiteral("SIZE|auto"), QStringLiteral("auto"));
    const QCommandLineOption dest(
        QStringLiteral("dest"),
        QStringLiteral("Put everything under SUBDIR of the receiver's storage folder (S3: below the "
                       "prefix)."),
        QStringLiteral("SUBDIR"));
    const QCommandLineOption token(QStringLiteral("token"),
                                   QStringLiteral("Bearer token for endpoints that have none of their own "
                                                  "(or set MULTILANE_TOKEN, which other users cannot see)."),
                                   QStringLiteral("TOKEN"));
    const QCommandLineOption onConflict(
        QStringLiteral("on-conflict"),
        QStringLiteral("When the destination exists: rename (default, 'name (1).ext'), "
                       "overwrite, skip or fail. An identical file is always skipped."),
        QStringLiteral("POLICY"), QStringLiteral("rename"));
    const QCommandLineOption order(
        QStringLiteral("order"),
        QStringLiteral("throughput (default): keep every connection busy, biggest files first "
                       "and the smallest last; files: finish files in the order given, first "
                       "files first."),
        QStringLiteral("throughput|files"), QStringLiteral("throughput"));
    const QCommandLineOption limitRate(QStringLiteral("limit-rate"),
                                       QStringLiteral("Send at most RATE bytes per second in total, e.g. 5M "
                                                      "(leave bandwidth for others)."),
                                       QStringLiteral("RATE"));
    const QCommandLineOption json(QStringLiteral("json"),
                                  QStringLiteral("Write one JSON event per line on stdout."));
    const QCommandLineOption quiet({QStringLiteral("q"), QStringLiteral("quiet")},
                                   QStringLiteral("No progress on stderr; errors and the summary only."));
    const QCommandLineOption stateDir(QStringLiteral("state-dir"),
                                      QStringLiteral("Keep the resume journal in DIR (default: "
                                                     "$XDG_STATE_HOME/multilane)."),
                                      QStringLiteral("DIR"));
    const QCommandLineOption maxOffline(
        QStringLiteral("max-offline"),
        QStringLiteral("Give up when no endpoint answers for this long, e.g. 90s, "
                       "10m (default: wait for the network)."),
        QStringLiteral("DURATION"));
    const QCommandLineOption stallTimeout(
        QStringLiteral("stall-timeout"),
        QStringLiteral("Cancel and retry elsewhere a request whose bytes stop "
                       "moving for this long (default: 60s)."),
        QStringLiteral("DURATION"));
    const QCommandLineOption onChange(
        QStringLiteral("on-change"),
        QStringLiteral("resume: a source file changed since it was started is sent "
                       "again from zero (restart, default) or refused (fail)."),
        QStringLiteral("restart|fail"), QStringLiteral("restart"));
    const QCommandLineOption caFile(
        QStringLiteral("ca-file"),
        QStringLiteral("https: trust the PEM CA certificate(s) in FILE as well as the system's, e.g. the "
                       "receiver's self-signed certificate."),
        QStringLiteral("FILE"));
    const QCommandLineOption pinSha256(
        QStringLiteral("pin-sha256"),
        QStringLiteral("https: accept exactly the receiver certificate with this SHA-256 (64 hex digits, "
                       "printed by multilane-receiver at start), even self-signed; no other."),
        QStringLiteral("HEX"));
    const S3Options s3Options;
    if (command == QLatin1String("upload")) {
        parser.addOptions({help, endpoint, endpointsFile, connections, chunkSize, dest, token, onConflict,
                           order, limitRate, json, quiet, stateDir, maxOffline, stallTimeout, caFile,
                           pinSha256});
        parser.addOptions(s3Options.all());
        parser.addPositionalArgument(QStringLiteral("PATH"), QStringLiteral("Files and folders to send."),
                                     QStringLiteral("PATH..."));
    } else if (command == QLatin1String("probe") || command == QLatin1String("speedtest")) {
        parser.setApplicationDescription(
            QStringLiteral("Measure bandwidth and round trip to the endpoints."));
        parser.addOptions({help, endpoint, endpointsFile, token, json, caFile, pinSha256});
        parser.addOptions(s3Options.all()); // only to refuse them with a reason
    } else if (command == QLatin1String("resume")) {
        parser.setApplicationDescription(
            QStringLiteral("Continue every unfinished upload from the journal."));
        parser.addOptions({help, json, quiet, stateDir, maxOffline, stallTimeout, onChange, token, caFile,
                           pinSha256, limitRate});
    } else {
        parser.setApplicationDescription(QStringLiteral("List unfinished uploads."));
        parser.addOptions({help, json, stateDir});
    }

    QStringList commandArguments = arguments;
    commandArguments.removeAt(1);
    if (!parser.parse(commandArguments))
        return usageError(parser.errorText());
    if (parser.isSet(help)) {
        result.command = Command::Help;
        result.helpText = command == QLatin1String("upload") ? uploadHelp(parser) : parser.helpText();
        return result;
    }

    UploadRequest &request = result.upload;
    request.json = parser.isSet(json);
    if (command == QLatin1String("status")) {
        // Only what `status` defines: asking the parser of any other option makes Qt complain.
        request.stateDir = parser.value(stateDir);
        result.command = Command::Status;
        return result;
    }
    if (parser.isSet(pinSha256)) {
        const Parsed<QByteArray> pin = EndpointParser::pinFromHex(parser.value(pinSha256));
        if (!pin.value)
            return usageError(QStringLiteral("--pin-sha256: ") + pin.error);
        request.pinSha256 = *pin.value;
    }
    if (parser.isSet(caFile)) {
        request.caFile = QFileInfo(parser.value(caFile)).absoluteFilePath();
        Endpoint probe; // reads the file now, so a wrong path is a usage error before anything runs
        if (const auto problem = EndpointParser::loadCaFile(probe, request.caFile))
            return usageError(QStringLiteral("--ca-file: ") + *problem);
    }
    const bool isProbe = command == QLatin1String("probe") || command == QLatin1String("speedtest");
    request.speedTest = command == QLatin1String("speedtest");
    if (!isProbe)
        request.stateDir = parser.value(stateDir);
    request.quiet = !isProbe && parser.isSet(quiet);
    if (!isProbe && parser.isSet(maxOffline)) {
        const std::optional<qint64> ms = parseDuration(parser.value(maxOffline));
        if (!ms || *ms <= 0)
            return usageError(
                QStringLiteral("--max-offline takes a duration such as 90s, 10m or 1h, not '%1'")
                    .arg(parser.value(maxOffline)));
        request.transfer.maxOfflineMs = *ms;
    }
    if (!isProbe && parser.isSet(stallTimeout)) {
        const std::optional<qint64> ms = parseDuration(parser.value(stallTimeout));
        if (!ms || *ms < 1000 || *ms > 3600000)
            return usageError(QStringLiteral("--stall-timeout takes a duration from 1s to 1h, not '%1'")
                                  .arg(parser.value(stallTimeout)));
        request.transfer.transferTimeoutMs = int(*ms);
    }
    if (!isProbe && parser.isSet(limitRate)) {
        const std::optional<qint64> rate = ByteSize::parse(parser.value(limitRate));
        if (!rate || *rate < 1024)
            return usageError(
                QStringLiteral("--limit-rate takes a rate of at least 1K (bytes per second), e.g. 5M, "
                               "not '%1'")
                    .arg(parser.value(limitRate)));
        request.transfer.limitBytesPerSecond = double(*rate);
    }
    if (command == QLatin1String("resume")) {
        result.command = Command::Resume;
        const QString change = parser.value(onChange);
        if (change != QLatin1String("restart") && change != QLatin1String("fail"))
            return usageError(QStringLiteral("--on-change takes restart or fail, not '%1'").arg(change));
        request.restartChangedFiles = change == QLatin1String("restart");
        request.transfer.resendChangedChunks = request.restartChangedFiles;
        request.tokenOverride = parser.value(token).toUtf8();
        return result;
    }

    result.command = Command::Upload;
    if (const auto problem = s3Options.read(parser, request.s3))
        return usageError(*problem);
    for (const QString &url : parser.values(endpoint)) {
        Parsed<Endpoint> parsed = EndpointParser::fromUrl(url);
        if (!parsed.value)
            return usageError(parsed.error);
        request.endpoints.append(*parsed.value);
    }
    if (parser.isSet(endpointsFile)) {
        Parsed<QList<Endpoint>> parsed = EndpointParser::fromFile(parser.value(endpointsFile));
        if (!parsed.value)
            return usageError(parsed.error);
        request.endpoints.append(*parsed.value);
    }
    if (request.endpoints.isEmpty() && !request.s3.isSet())
        return usageError(
            QStringLiteral("no endpoint given: add --endpoint http://host:port or --endpoints-file "
                           "FILE, or --s3 s3://bucket/folder/"));
    if (const auto problem = s3Options.check(request, command, parser.isSet(token)))
        return usageError(*problem);
    if (isProbe)
        result.command = Command::Probe;
    if (!request.caFile.isEmpty() || !request.pinSha256.isEmpty()) {
        const bool anyHttps =
            std::any_of(request.endpoints.cbegin(), request.endpoints.cend(),
                        [](const Endpoint &e) { return e.url.scheme() == QLatin1String("https"); });
        if (!anyHttps)
            return usageError(QStringLiteral("--ca-file and --pin-sha256 are for https:// endpoints; every "
                                             "endpoint given is http://"));
        if (const auto problem =
                EndpointParser::applyTlsDefaults(request.endpoints, request.caFile, request.pinSha256))
            return usageError(*problem);
    }

    QByteArray sharedToken = parser.value(token).toUtf8();
    if (sharedToken.isEmpty())
        sharedToken =
            QProcessEnvironment::systemEnvironment().value(QStringLiteral("MULTILANE_TOKEN")).toUtf8();
    for (Endpoint &e : request.endpoints) {
        if (e.token.isEmpty() && !request.s3.isSet())
            e.token = sharedToken;
    }

    if (result.command == Command::Probe)
        return result;

    request.paths = parser.positionalArguments();
    if (request.paths.isEmpty())
        return usageError(QStringLiteral("nothing to send: name at least one file or folder"));

    if (parser.isSet(connections)) {
        bool ok = false;
        const int n = parser.value(connections).toInt(&ok);
        if (!ok || n < 1 || n > 256)
            return usageError(QStringLiteral("--connections takes a number from 1 to 256, not '%1'")
                                  .arg(parser.value(connections)));
        request.transfer.connections = n;
        request.connectionsFixed = true;
    }

    const QString chunkText = parser.value(chunkSize);
    if (chunkText != QLatin1String("auto")) {
        const std::optional<qint64> bytes = ByteSize::parse(chunkText);
        if (!bytes || *bytes < ChunkPlanner::MinChunkSize || *bytes > ChunkPlanner::MaxChunkSize)
            return usageError(
                QStringLiteral("--chunk-size takes a size from 64K to 1G (e.g. 8M) or 'auto', not '%1'")
                    .arg(chunkText));
        request.transfer.chunkSize = *bytes;
        request.autoChunkSize = false;
    }

    request.destination = parser.value(dest);
    if (!request.destination.isEmpty()) {
        const QString cleaned = UploadPath::join(request.destination, QString());
        if (const auto problem = UploadPath::problem(cleaned.toUtf8()))
            return usageError(
                QStringLiteral("--dest '%1' is not usable: %2").arg(request.destination, *problem));
        request.destination = cleaned;
    }

    const std::optional<ConflictPolicy> policy = conflictPolicyFromName(parser.value(onConflict).toLatin1());
    if (!policy)
        return usageError(QStringLiteral("--on-conflict takes rename, overwrite, skip or fail, not '%1'")
                              .arg(parser.value(onConflict)));
    request.transfer.onConflict = *policy;

    if (parser.value(order) != QLatin1String("throughput") && parser.value(order) != QLatin1String("files"))
        return usageError(
            QStringLiteral("--order takes throughput or files, not '%1'").arg(parser.value(order)));
    request.transfer.filesInOrder = parser.value(order) == QLatin1String("files");
    return result;
}

std::optional<qint64> parseDuration(const QString &text)
{
    // One grammar for both ends (the receiver's --expire-after takes the same).
    const std::optional<std::chrono::milliseconds> parsed = DurationText::parse(text);
    return parsed ? std::optional<qint64>(parsed->count()) : std::nullopt;
}

} // namespace multilane::CommandLine
