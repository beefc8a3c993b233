// `multilane`: with no arguments, or with files and folders (`multilane FILE…`, what a file
// manager's "Open with" runs), and a display, the desktop window (`multilane-window`, beside this
// binary); otherwise the headless front end (upload, resume, status). Both drive the same engine
// in multilane_core.
#include "CommandLine.h"
#include "LaunchCommon.h"
#include "PlainEventLoop.h"
#include "ProbeCommand.h"
#include "ResumeCommand.h"
#include "ResumeJournal.h"
#include "SignalWatcher.h"
#include "UploadCommand.h"

#include <QCoreApplication>
#include <QFile>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <openssl/crypto.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace multilane;

// A window can only open where a display server (or a platform chosen by hand) is there;
// elsewhere (ssh, CI, cron) `multilane` stays the command-line tool it always was.
static bool hasDisplay()
{
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
           !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

// The files and folders named after `multilane` (paths, or file:// URLs), made absolute for a
// window that may run in another folder; empty when the first word is a command or none of them
// exists (a mistyped command is the command line's to explain).
static QStringList launchedPaths(int argc, char *argv[])
{
    QStringList paths;
    bool anyExists = false;
    for (int i = 1; i < argc; ++i) {
        const QString argument = QString::fromLocal8Bit(argv[i]);
        if (i == 1 && CommandLine::isCommand(argument))
            return {};
        const QFileInfo info = launch::launchedFile(argument);
        anyExists |= info.exists();
        paths.append(info.absoluteFilePath());
    }
    return anyExists ? paths : QStringList();
}

// The window is a program of its own beside this one, so the command line does not load the
// window's libraries. It replaces this process (the same pid for whoever launched it); returns
// only when it could not.
static int runWindow(const QStringList &paths)
{
    // Beside this binary (the build tree, /usr/bin), else wherever PATH finds it.
    std::string window = "multilane-window";
    char self[PATH_MAX];
    const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self);
    if (length > 0 && length < ssize_t(sizeof self)) {
        const std::string path(self, std::size_t(length));
        window = path.substr(0, path.rfind('/') + 1) + window;
    }
    std::vector<std::string> arguments{window};
    for (const QString &path : paths)
        arguments.push_back(QFile::encodeName(path).toStdString());
    std::vector<char *> argv;
    for (std::string &argument : arguments)
        argv.push_back(argument.data());
    argv.push_back(nullptr);
    ::execvp(window.c_str(), argv.data());
    std::fprintf(
        stderr,
        "multilane: cannot open the window: %s: %s (is the multilane package whole?); to upload from "
        "here: multilane upload --endpoint URL FILE…\n",
        window.c_str(), std::strerror(errno));
    return 2;
}

// The headless front end: upload, resume, status, probe.
static int runCommandLine(int argc, char *argv[])
{
    launch::usePlainEventLoop(); // here, not in main(): the window, exec'd from there, keeps GLib's
    QCoreApplication app(argc, argv);
    launch::setIdentity();

    QFile out;
    QFile err;
    out.open(stdout, QIODevice::WriteOnly);
    err.open(stderr, QIODevice::WriteOnly);

    const CommandLine::Result parsed = CommandLine::parse(QCoreApplication::arguments());
    if (!parsed.error.isEmpty()) {
        err.write(QStringLiteral("multilane: %1\n").arg(parsed.error).toUtf8());
        return 2;
    }
    switch (parsed.command) {
    case CommandLine::Command::Help:
        out.write(parsed.helpText.toUtf8());
        return 0;
    case CommandLine::Command::Version:
        out.write(QStringLiteral("multilane %1\n").arg(QCoreApplication::applicationVersion()).toUtf8());
        return 0;
    case CommandLine::Command::Upload:
    case CommandLine::Command::Resume:
    case CommandLine::Command::Status:
    case CommandLine::Command::Probe:
        break;
    }

    const UploadRequest &request = parsed.upload;
    if (parsed.command == CommandLine::Command::Probe) {
        ProbeCommand probe(request, out, err);
        QObject::connect(&probe, &ProbeCommand::finished, &app, &QCoreApplication::exit);
        probe.start();
        return app.exec();
    }
    const QString stateDir =
        request.stateDir.isEmpty() ? ResumeJournal::defaultDirectory() : request.stateDir;
    ResumeJournal journal(stateDir);
    if (parsed.command == CommandLine::Command::Status)
        return ResumeCommand::printStatus(journal, request.json, out, err);

    const bool terminal = isatty(STDERR_FILENO) != 0;
    const std::optional<QString> journalProblem = journal.open();
    if (journalProblem) {
        if (parsed.command == CommandLine::Command::Resume) {
            err.write(QStringLiteral("multilane: cannot open the resume journal: %1\n")
                          .arg(*journalProblem)
                          .toUtf8());
            return 1;
        }
        err.write(
            QStringLiteral("warning: no resume journal (%1); this upload cannot be resumed after a crash\n")
                .arg(*journalProblem)
                .toUtf8());
    }
    for (const QString &warning : journal.state().warnings) {
        if (parsed.command == CommandLine::Command::Upload)
            err.write(QStringLiteral("warning: %1\n").arg(warning).toUtf8());
    }
    ResumeJournal *journalIfOpen = journal.isOpen() ? &journal : nullptr;

    SignalWatcher interruptions;
    int exitCode = 0;
    if (parsed.command == CommandLine::Command::Resume) {
        ResumeCommand command(request, journal, out, err, terminal);
        QObject::connect(&interruptions, &SignalWatcher::interrupted, &command, &ResumeCommand::interrupt);
        QObject::connect(&command, &ResumeCommand::finished, &app, &QCoreApplication::exit);
        command.start();
        exitCode = app.exec();
    } else {
        UploadCommand command(request, journalIfOpen, out, err, terminal);
        QObject::connect(&interruptions, &SignalWatcher::interrupted, &command, &UploadCommand::interrupt);
        QObject::connect(&command, &UploadCommand::finished, &app, &QCoreApplication::exit);
        command.start();
        exitCode = app.exec();
    }
    return exitCode;
}

int main(int argc, char *argv[])
{
    // OpenSSL frees every thread's state from an atexit handler, while Qt's network threads may
    // still be ending and free their own again at thread exit: a double free, caught by ASan about
    // once in 50 exits right after a TLS failure (tst_tls). Each thread frees its own instead.
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr);
    const QStringList paths = launchedPaths(argc, argv);
    if ((argc == 1 || !paths.isEmpty()) && hasDisplay())
        return runWindow(paths);
    if (!paths.isEmpty()) {
        std::fprintf(stderr, "multilane: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are "
                             "not set); to upload from here: multilane upload --endpoint URL FILE…\n");
        return 2;
    }
    return runCommandLine(argc, argv);
}
