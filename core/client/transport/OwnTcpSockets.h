#pragma once

#include <QtGlobal>
#include <functional>

namespace multilane::OwnTcpSockets {

// Calls `visit` with the descriptor and inode of each TCP socket this process holds, found by
// walking /proc/self/fd (Linux; elsewhere it visits nothing). Qt offers no way to the sockets of
// its HTTP client, so this is how the client reaches its own connections.
void forEach(const std::function<void(int fd, quint64 inode)> &visit);
// Whether this platform lets forEach() see anything.
bool isSupported();

} // namespace multilane::OwnTcpSockets
