#pragma once

#include <QByteArray>
#include <QDateTime>

namespace multilane::HttpDate {

// An HTTP date ("Fri, 01 Mar 2024 11:00:00 GMT", RFC 9110's IMF-fixdate) in UTC; invalid when
// it is not one. Qt's RFC 2822 reader refuses the "GMT" zone that every HTTP server sends.
QDateTime parse(const QByteArray &text);

} // namespace multilane::HttpDate
