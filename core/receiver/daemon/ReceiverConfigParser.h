#pragma once

#include "ReceiverConfig.h"

#include <QString>
#include <QStringList>

namespace multilane {

// Reads multilane-receiver's command line, and the --config file it names, into a ReceiverConfig,
// in-process (no exit, no output), so tests check every option and message without a process.
// The file's `key = value` lines become arguments for the same parser (ConfigFileArguments), so
// every flag works in both places and is checked the same way.
class ReceiverConfigParser {
public:
    struct Outcome {
        enum class Action {
            Run,         // `config` is complete
            ShowHelp,    // print `text` on stdout, exit 0
            ShowVersion, // likewise
            Refuse,      // `text` names the bad option and says what it takes: exit 2
        };
        Action action = Action::Refuse;
        ReceiverConfig config;
        QString text;
    };

    // `arguments` as QCoreApplication::arguments() has them: the program first.
    static Outcome parse(const QStringList &arguments);
};

} // namespace multilane
