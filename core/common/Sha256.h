#pragma once

#include <QByteArray>
#include <QString>
#include <cstddef>
#include <memory>
#include <optional>

namespace multilane {

// Streaming SHA-256 through OpenSSL, which uses the CPU's SHA extensions (~2 GB/s here, where
// QCryptographicHash's portable code manages a fraction of that).
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256 &) = delete;
    Sha256 &operator=(const Sha256 &) = delete;

    void addData(const char *data, std::size_t length);
    void addData(const QByteArray &data) { addData(data.constData(), std::size_t(data.size())); }
    // Lowercase hex; finishes the hash (call once).
    QByteArray hexDigest();

    // Hashes a whole file in bounded reads; nullopt when it cannot be read.
    static std::optional<QByteArray> ofFile(const QString &path);
    static bool isHexDigest(const QByteArray &text);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace multilane
