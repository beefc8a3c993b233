#pragma once

#include "Endpoint.h"
#include "TransferScheduler.h"

#include <QStringList>

namespace multilane {

// What `multilane upload` was asked to do, after validation.
struct UploadRequest {
    QList<Endpoint> endpoints;
    QStringList paths;
    QString destination;
    TransferOptions transfer;
    bool connectionsFixed = false;
    bool json = false;
    bool quiet = false;
};

// Parses the command line of the headless front end. Errors are values with a message that
// says what to type instead; --help text is returned, not printed.
namespace CommandLine {

enum class Command { Help, Version, Upload };

struct Result {
    Command command = Command::Help;
    UploadRequest upload;
    QString helpText;
    QString error; // not empty: bad usage (exit code 2)
};

Result parse(const QStringList &arguments);
QString mainHelp();

} // namespace CommandLine
} // namespace multilane
