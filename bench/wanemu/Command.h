#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace multilane::wanemu {

// Runs argv[0] (looked up on PATH) and waits; returns its exit status, or -1 when it could
// not run or died of a signal. Its output is discarded when quiet.
int runCommand(const std::vector<std::string> &argv, bool quiet = false);

// Starts argv without waiting; the child gets SIGTERM when wanemu dies, so nothing it
// started outlives it. Returns the pid, or -1.
pid_t spawnCommand(const std::vector<std::string> &argv);

// "ip netns exec NAME sh -c COMMAND".
std::vector<std::string> inNamespace(const std::string &netns, const std::string &shellCommand);

} // namespace multilane::wanemu
