#pragma once

#include <QByteArray>
#include <cstddef>
#include <memory>

namespace multilane {

// Streaming MD5 through OpenSSL, for Content-MD5 and ETags (S3's integrity check, not security).
class Md5Digest {
public:
    Md5Digest();
    ~Md5Digest();
    Md5Digest(const Md5Digest &) = delete;
    Md5Digest &operator=(const Md5Digest &) = delete;

    void addData(const char *data, std::size_t length);
    void addData(const QByteArray &data) { addData(data.constData(), std::size_t(data.size())); }
    // The 16 binary bytes; finishes the digest (call once).
    QByteArray result();

    static QByteArray of(const QByteArray &data);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace multilane
