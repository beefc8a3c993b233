#pragma once

#include "WireMessage.h"

#include <QByteArray>

namespace multilane::HttpRequestHead {

// The request line and header fields of `request` as HTTP/1.1 sends them, ending with the empty
// line: the target in the form Qt's client sends (encoded, path segments normalised), a Host
// field (the default port left out, as S3 signs it), the user agent and `Accept-Encoding:
// identity` unless the request sets them, its own fields, and Content-Length when it has a
// body (or is a PUT or POST).
QByteArray build(const WireRequest &request, const QByteArray &userAgent);

// The Host field's value for `url`.
QByteArray hostField(const QUrl &url);

} // namespace multilane::HttpRequestHead
