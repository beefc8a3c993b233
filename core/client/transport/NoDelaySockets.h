#pragma once

class QNetworkReply;

namespace multilane {

// Turns Nagle's algorithm off on the client's TCP connections. Qt's HTTP client leaves it on and
// offers no way to its sockets (QTBUG-28764): the last, short segment of each request body then
// waits until everything sent before it is acknowledged — up to a round trip per request on a
// real link, and a 40 ms delayed-ACK stall on a fast one (one connection on loopback: 27–43 MB/s
// with 2 MiB requests). curl and most HTTP clients set TCP_NODELAY for this reason.
//
// There is no socket to reach, so this sweeps the process's own descriptors (/proc/self/fd, on
// Linux; elsewhere it does nothing) and sets TCP_NODELAY on each TCP socket that lacks it. A
// reply that opens a new connection sweeps twice (when it starts connecting, and when its request
// is sent, in case the socket was not there yet); replies on kept-alive connections do not.
namespace NoDelaySockets {
// Sweeps if `reply` opens a connection.
void watch(QNetworkReply *reply);
// One sweep; returns how many sockets it changed.
int sweep();
} // namespace NoDelaySockets

} // namespace multilane
