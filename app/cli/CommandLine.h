#pragma once

#include "Endpoint.h"
#include "S3TargetSpec.h"
#include "TransferScheduler.h"

#include <QStringList>

namespace multilane {

// What `multilane upload` was asked to do, after validation.
struct UploadRequest {
    QList<Endpoint> endpoints; // receivers, or with s3 set the bucket's gateways (none: AWS's)
    S3TargetSpec s3;           // --s3 and its options; empty: the endpoints are receivers
    QStringList paths;
    QString destination;
    TransferOptions transfer;
    bool connectionsFixed = false;
    bool autoChunkSize = true; // --chunk-size auto: measure the link first
    bool speedTest = false;    // `speedtest` rather than `probe` (both run as Command::Probe)
    bool json = false;
    bool quiet = false;
    QString stateDir;                // the resume journal's folder; empty: the default
    QByteArray tokenOverride;        // resume --token: for endpoints whose token was not journaled
    QString caFile;                  // --ca-file, for https endpoints without their own (resume)
    QByteArray pinSha256;            // --pin-sha256, likewise
    bool restartChangedFiles = true; // resume: a changed source starts over (--on-change restart)
};

// Parses the command line of the headless front end. Errors are values with a message that
// says what to type instead; --help text is returned, not printed.
namespace CommandLine {

enum class Command { Help, Version, Upload, Resume, Status, Probe };

struct Result {
    Command command = Command::Help;
    UploadRequest upload;
    QString helpText;
    QString error; // not empty: bad usage (exit code 2)
};

Result parse(const QStringList &arguments);
// A word the command line takes as its first argument ("upload", "--help", …): anything else is
// not for it (the desktop opens files named on the command line in the window).
bool isCommand(const QString &word);
QString mainHelp();
// "90", "30s", "5m", "2h" -> milliseconds
std::optional<qint64> parseDuration(const QString &text);

} // namespace CommandLine
} // namespace multilane
