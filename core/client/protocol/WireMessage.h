#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QUrl>
#include <optional>

namespace multilane {

struct WireHeader {
    QByteArray name;
    QByteArray value;
};

// A request body read from a file as it is sent, never held whole in memory.
struct FileSlice {
    QString path;
    qint64 offset = 0;
    qint64 length = 0;
};

// One HTTP request as a protocol wants it sent: a plain value, so a protocol can be tested
// without sockets and a transport needs to know nothing of any protocol.
struct WireRequest {
    QByteArray method; // GET, HEAD, PUT, POST, DELETE
    QUrl url;
    QList<WireHeader> headers; // the transport adds only what every request carries (user agent)
    QByteArray body;           // a small body (JSON, XML); empty when file is set
    std::optional<FileSlice> file;
    int timeoutMs = 0; // no bytes moving for this long: aborted, no answer; 0: the transport's

    qint64 bodyLength() const { return file ? file->length : body.size(); }
    QByteArray header(QByteArrayView name) const;
    void setHeader(const QByteArray &name, const QByteArray &value);
};

// What came back for one WireRequest.
struct WireReply {
    int httpStatus = 0; // 0: no HTTP answer at all (refused, reset, timed out, name not found)
    QByteArray reasonPhrase;
    QList<WireHeader> headers;
    QByteArray body;
    // Why the exchange did not end cleanly: no answer, or an answer cut short (then httpStatus is
    // set). Empty when the whole answer came.
    QString networkError;
    bool closedUnanswered = false; // the server closed the connection without a word
    // The transport's words for a failed TLS handshake (untrusted certificate, pin mismatch),
    // naming the endpoint and the fix; retrying cannot help.
    std::optional<QString> tlsFailure;
    QString tlsCode; // "tls_untrusted", "tls_pin_mismatch", "tls_failed"
    // The request's file body could not be read (moved, shortened, permissions): nothing useful
    // was sent, and the fault is local.
    std::optional<QString> unreadableBody;

    bool isWhole() const { return httpStatus != 0 && networkError.isEmpty(); }
    bool isSuccess() const { return isWhole() && httpStatus >= 200 && httpStatus < 300; }
    QByteArray header(QByteArrayView name) const; // case-insensitive; empty when absent
};

} // namespace multilane
