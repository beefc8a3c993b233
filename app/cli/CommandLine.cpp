#include "CommandLine.h"

#include "ByteSize.h"
#include "UploadPath.h"

#include <QCommandLineParser>
#include <QProcessEnvironment>

namespace multilane::CommandLine {

QString mainHelp()
{
    return QStringLiteral(
        "Usage: multilane <command> [options]\n"
        "\n"
        "Multilane sends many files and many chunks at once over many connections to one or more\n"
        "multilane-receiver endpoints, so uploads fill the link instead of one TCP window.\n"
        "\n"
        "Commands:\n"
        "  upload     send files and folders (multilane upload --help for its options)\n"
        "  help       show this text\n"
        "  version    show the version\n"
        "\n"
        "Example:\n"
        "  multilane upload --endpoint http://recv:9101 --endpoint http://recv:9102 ~/video.mov ~/photos/\n");
}

static QString uploadHelp(const QCommandLineParser &parser)
{
    QString text = parser.helpText();
    text.replace(QLatin1String("[options]"), QLatin1String("upload [options]"));
    return text + QStringLiteral(
        "\nExit codes: 0 every file arrived verified (or was skipped as identical), 1 some file failed,\n"
        "2 bad usage.\n"
        "\nExamples:\n"
        "  multilane upload --endpoint http://recv:9101 --endpoint http://recv:9102 \\\n"
        "                   --endpoint http://recv:9103 --connections 12 ~/video.mov ~/photos/\n"
        "  multilane upload --endpoints-file endpoints.json --dest inbox --json report.pdf > events.jsonl\n"
        "\nAn endpoints file holds one URL per line, or\n"
        "  {\"endpoints\":[{\"url\":\"http://recv:9101\",\"token\":\"…\",\"weight\":1,\"maxConnections\":6}]}\n");
}

static Result usageError(const QString &message)
{
    Result result;
    result.command = Command::Upload;
    result.error = message + QStringLiteral("\nRun 'multilane upload --help' for the options.");
    return result;
}

Result parse(const QStringList &arguments)
{
    Result result;
    if (arguments.size() < 2 || arguments.at(1) == QLatin1String("help") || arguments.at(1) == QLatin1String("--help")
        || arguments.at(1) == QLatin1String("-h")) {
        result.helpText = mainHelp();
        return result;
    }
    if (arguments.at(1) == QLatin1String("version") || arguments.at(1) == QLatin1String("--version")) {
        result.command = Command::Version;
        return result;
    }
    if (arguments.at(1) != QLatin1String("upload")) {
        result.error = QStringLiteral("unknown command '%1'\n\n").arg(arguments.at(1)) + mainHelp();
        return result;
    }

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Send files and folders to multilane-receiver endpoints."));
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."));
    const QCommandLineOption endpoint(QStringLiteral("endpoint"),
                                      QStringLiteral("A receiver URL, e.g. http://recv:9101. Repeat for several."),
                                      QStringLiteral("URL"));
    const QCommandLineOption endpointsFile(QStringLiteral("endpoints-file"),
                                           QStringLiteral("Read endpoints from FILE (one URL per line, or JSON)."),
                                           QStringLiteral("FILE"));
    const QCommandLineOption connections(QStringLiteral("connections"),
                                         QStringLiteral("Connections in total (default: 4 per endpoint)."),
                                         QStringLiteral("N"));
    const QCommandLineOption chunkSize(QStringLiteral("chunk-size"),
                                       QStringLiteral("Chunk size, e.g. 8M or 512K, or 'auto' (default; 8M until the link probe lands)."),
                                       QStringLiteral("SIZE|auto"), QStringLiteral("auto"));
    const QCommandLineOption dest(QStringLiteral("dest"),
                                  QStringLiteral("Put everything under SUBDIR of the receiver's storage folder."),
                                  QStringLiteral("SUBDIR"));
    const QCommandLineOption token(QStringLiteral("token"),
                                   QStringLiteral("Bearer token for endpoints that have none of their own "
                                                  "(or set MULTILANE_TOKEN, which other users cannot see)."),
                                   QStringLiteral("TOKEN"));
    const QCommandLineOption onConflict(QStringLiteral("on-conflict"),
                                        QStringLiteral("When the destination exists: rename (default, 'name (1).ext'), "
                                                       "overwrite, skip or fail. An identical file is always skipped."),
                                        QStringLiteral("POLICY"), QStringLiteral("rename"));
    const QCommandLineOption json(QStringLiteral("json"),
                                  QStringLiteral("Write one JSON event per line on stdout."));
    const QCommandLineOption quiet({QStringLiteral("q"), QStringLiteral("quiet")},
                                   QStringLiteral("No progress on stderr; errors and the summary only."));
    parser.addOptions({help, endpoint, endpointsFile, connections, chunkSize, dest, token, onConflict, json, quiet});
    parser.addPositionalArgument(QStringLiteral("PATH"), QStringLiteral("Files and folders to send."),
                                 QStringLiteral("PATH..."));

    QStringList uploadArguments = arguments;
    uploadArguments.removeAt(1);
    if (!parser.parse(uploadArguments))
        return usageError(parser.errorText());
    if (parser.isSet(help)) {
        result.command = Command::Help;
        result.helpText = uploadHelp(parser);
        return result;
    }

    result.command = Command::Upload;
    UploadRequest &request = result.upload;
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
    if (request.endpoints.isEmpty())
        return usageError(QStringLiteral("no endpoint given: add --endpoint http://host:port or --endpoints-file FILE"));

    QByteArray sharedToken = parser.value(token).toUtf8();
    if (sharedToken.isEmpty())
        sharedToken = QProcessEnvironment::systemEnvironment().value(QStringLiteral("MULTILANE_TOKEN")).toUtf8();
    for (Endpoint &e : request.endpoints) {
        if (e.token.isEmpty())
            e.token = sharedToken;
    }

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
    } else {
        request.transfer.connections = 0;
        for (const Endpoint &e : std::as_const(request.endpoints))
            request.transfer.connections += std::min(4, e.maxConnections);
    }

    const QString chunkText = parser.value(chunkSize);
    if (chunkText != QLatin1String("auto")) {
        const std::optional<qint64> bytes = ByteSize::parse(chunkText);
        if (!bytes || *bytes < ChunkPlanner::MinChunkSize || *bytes > ChunkPlanner::MaxChunkSize)
            return usageError(QStringLiteral("--chunk-size takes a size from 64K to 1G (e.g. 8M) or 'auto', not '%1'")
                                  .arg(chunkText));
        request.transfer.chunkSize = *bytes;
    }

    request.destination = parser.value(dest);
    if (!request.destination.isEmpty()) {
        const QString cleaned = UploadPath::join(request.destination, QString());
        if (const auto problem = UploadPath::problem(cleaned.toUtf8()))
            return usageError(QStringLiteral("--dest '%1' is not usable: %2").arg(request.destination, *problem));
        request.destination = cleaned;
    }

    const std::optional<OnConflict> policy = onConflictFromName(parser.value(onConflict));
    if (!policy)
        return usageError(QStringLiteral("--on-conflict takes rename, overwrite, skip or fail, not '%1'")
                              .arg(parser.value(onConflict)));
    request.transfer.onConflict = *policy;
    request.json = parser.isSet(json);
    request.quiet = parser.isSet(quiet);
    return result;
}

} // namespace multilane::CommandLine
