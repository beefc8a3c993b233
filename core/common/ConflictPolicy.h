#pragma once

#include <QByteArray>
#include <optional>

namespace multilane {

// What to do when a finished file already sits at the destination path: the protocol's
// "onConflict" (docs/protocol.md). One definition for the client and the receiver.
enum class ConflictPolicy { Rename, Overwrite, Skip, Fail };

std::optional<ConflictPolicy> conflictPolicyFromName(const QByteArray &name);
QByteArray conflictPolicyName(ConflictPolicy policy);

} // namespace multilane
