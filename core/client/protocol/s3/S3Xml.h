#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <optional>

namespace multilane {

// An S3 answer's XML as a small tree. Elements are matched by local name, so answers with
// AWS's namespace (http://s3.amazonaws.com/doc/2006-03-01/), another one, or none read alike;
// unknown elements are kept and ignored by whoever does not ask for them.
struct S3XmlElement {
    QString name;
    QString text; // the element's own character data, untrimmed (keys may end in spaces)
    QList<S3XmlElement> children;

    const S3XmlElement *child(const QString &childName) const;
    QString childText(const QString &childName) const; // "" when absent
    QList<const S3XmlElement *> childrenNamed(const QString &childName) const;
};

namespace S3Xml {

inline constexpr int MaxDepth = 32;
// The root element, or nullopt with the reason (cut short, not XML, nested too deep).
std::optional<S3XmlElement> parse(const QByteArray &body, QString *error);

} // namespace S3Xml
} // namespace multilane
