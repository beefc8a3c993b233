#pragma once

#include <QString>

namespace multilane {

// The upload id the engine keeps (and the resume journal stores) for an S3 multipart upload.
// S3 needs the object key with every request of an upload, and a renamed file's key is not the
// one its destination path gives, so that key travels inside the id: "UPLOADID|KEY". An upload
// to the usual key is just S3's UploadId (no S3 server puts a '|' in one).
struct S3UploadHandle {
    QString uploadId; // S3's
    QString key;      // the object key the upload writes

    // defaultKey: the key the file's destination path gives.
    QString encode(const QString &defaultKey) const;
    static S3UploadHandle decode(const QString &handle, const QString &defaultKey);
};

} // namespace multilane
