#pragma once

#include <QByteArray>
#include <QString>

// A throw-away self-signed certificate (EC P-256, for localhost and 127.0.0.1, valid one day)
// made with the OpenSSL API, so TLS tests need no openssl program.
struct TestCertificate {
    QString certificateFile; // PEM
    QString keyFile;         // PEM, no passphrase
    QString sha256Hex;       // of the certificate's DER: what --pin-sha256 takes

    // Writes <dir>/<name>.crt and <dir>/<name>.key. Empty files on failure.
    static TestCertificate create(const QString &dir, const QString &name = QStringLiteral("receiver"));
    bool isValid() const { return !sha256Hex.isEmpty(); }
};
