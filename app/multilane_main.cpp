// `multilane`: the headless front end. (The desktop window arrives with the GUI issue.)
#include "CommandLine.h"
#include "UploadCommand.h"

#include <QCoreApplication>
#include <QFile>
#include <cstdio>
#include <unistd.h>

using namespace multilane;

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("multilane"));
    QCoreApplication::setOrganizationName(QStringLiteral("Multilane"));
    QCoreApplication::setApplicationVersion(QStringLiteral(MULTILANE_VERSION));

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
        break;
    }

    UploadCommand command(parsed.upload, out, err, isatty(STDERR_FILENO) != 0);
    QObject::connect(&command, &UploadCommand::finished, &app, &QCoreApplication::exit);
    command.start();
    return app.exec();
}
