#pragma once

#include "ReceiverApi.h"

#include <QString>

namespace multilane {

// Turns a receiver's refusal into words a user can act on: which endpoint, what the receiver
// said, and what to do about it (check the token, pick another folder, free space, ask the
// admin). Used wherever an error reaches a person: the CLI, the window, the journal.
namespace RefusalMessage {

QString explain(const ApiError &error, const QString &endpointName);
// 401: the endpoint will refuse every request with this token; retrying cannot help.
inline bool isBadToken(const ApiError &error)
{
    return error.httpStatus == 401;
}

} // namespace RefusalMessage
} // namespace multilane
