#pragma once

#include <QCommandLineOption>
#include <QList>
#include <QString>
#include <QStringList>

namespace multilane {

// Turns a receiver config file into command-line arguments, so every flag works in the file
// without code of its own: `key = value` lines, where the keys are the long option names without
// dashes, become `--key=value` (a boolean flag takes true/false), in file order; `#` and `;` start
// comment lines. The caller puts them before the real command line and parses both with one
// QCommandLineParser. Options given on the command line are left out of the file's arguments, so
// they replace the file's values rather than add to them (which matters for repeatable ones).
class ConfigFileArguments {
public:
    struct Result {
        QStringList arguments;
        QString error; // "FILE:LINE: what is wrong, and what to do"; empty on success
    };

    explicit ConfigFileArguments(QList<QCommandLineOption> options);

    // `givenOnCommandLine`: option names set on the command line.
    Result read(const QString &path, const QStringList &givenOnCommandLine) const;
    Result parse(const QByteArray &content, const QString &fileName,
                 const QStringList &givenOnCommandLine) const;

private:
    const QCommandLineOption *find(const QString &key) const;

    QList<QCommandLineOption> m_options;
};

} // namespace multilane
