#include "S3Xml.h"

#include <QXmlStreamReader>

namespace multilane {

const S3XmlElement *S3XmlElement::child(const QString &childName) const
{
    for (const S3XmlElement &element : children) {
        if (element.name == childName)
            return &element;
    }
    return nullptr;
}

QString S3XmlElement::childText(const QString &childName) const
{
    const S3XmlElement *element = child(childName);
    return element ? element->text : QString();
}

QList<const S3XmlElement *> S3XmlElement::childrenNamed(const QString &childName) const
{
    QList<const S3XmlElement *> found;
    for (const S3XmlElement &element : children) {
        if (element.name == childName)
            found.append(&element);
    }
    return found;
}

namespace S3Xml {

std::optional<S3XmlElement> parse(const QByteArray &body, QString *error)
{
    QXmlStreamReader reader(body);
    // The open elements, innermost last; an element joins its parent when it closes.
    QList<S3XmlElement> open;
    std::optional<S3XmlElement> root;
    while (!reader.atEnd()) {
        switch (reader.readNext()) {
        case QXmlStreamReader::StartElement:
            if (open.size() >= MaxDepth) {
                *error = QStringLiteral("XML nested deeper than %1 elements").arg(MaxDepth);
                return std::nullopt;
            }
            open.append(S3XmlElement{reader.name().toString(), {}, {}});
            break;
        case QXmlStreamReader::Characters:
            if (!open.isEmpty())
                open.last().text += reader.text();
            break;
        case QXmlStreamReader::EndElement: {
            S3XmlElement done = open.takeLast();
            if (open.isEmpty())
                root = std::move(done);
            else
                open.last().children.append(std::move(done));
            break;
        }
        default:
            break;
        }
    }
    if (reader.hasError()) {
        *error = reader.errorString();
        return std::nullopt;
    }
    if (!root) {
        *error = QStringLiteral("no XML element");
        return std::nullopt;
    }
    return root;
}

} // namespace S3Xml
} // namespace multilane
