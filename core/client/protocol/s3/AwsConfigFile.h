#pragma once

#include <QMap>
#include <QString>
#include <optional>

namespace multilane {

// The INI files aws-cli reads (~/.aws/credentials, ~/.aws/config): [section] headers,
// key = value lines, whole-line '#'/';' comments, and nested values ("s3 =" followed by
// indented lines), which are stored as "s3.key".
class AwsConfigFile {
public:
    using Section = QMap<QString, QString>;

    static AwsConfigFile fromText(const QString &text);
    // An absent file reads as empty; nullopt only when it exists and cannot be read.
    static std::optional<AwsConfigFile> read(const QString &path);

    bool hasSection(const QString &name) const { return m_sections.contains(name); }
    Section section(const QString &name) const { return m_sections.value(name); }

private:
    QMap<QString, Section> m_sections;
};

} // namespace multilane
