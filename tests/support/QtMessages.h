#pragma once

#include <QByteArray>
#include <QProcessEnvironment>
#include <QStringList>

// Qt's own warnings must never reach a user ("QIODevice::read (…): device not open"). Children
// started with marked() print every message that passes through Qt's handler behind a marker;
// find() returns those lines and any other line that looks like Qt's ("QClass::method: …",
// "QCommandLineParser: …", "qt.category: …").
namespace QtMessages {
inline constexpr char Marker[] = "[qt-message]";
// The environment for a child process: `base` with QT_MESSAGE_PATTERN set to mark Qt's messages.
QProcessEnvironment marked(QProcessEnvironment base = QProcessEnvironment::systemEnvironment());
QStringList find(const QByteArray &stderrText);
} // namespace QtMessages
