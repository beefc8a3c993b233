#pragma once

#include "Endpoint.h"
#include "S3CredentialsLoader.h"
#include "S3TargetSpec.h"

#include <QList>
#include <memory>
#include <optional>

namespace multilane {

class UploadProtocol;
struct UploadPlan;

// What an S3 plan needs when its run starts: keys and settings found the way aws-cli finds them
// (unless the plan brings keys of its own, as the window does from the keyring), the gateways
// (AWS's endpoint for the region when none is given), their CA bundle, and the protocol built
// from all that. Nothing is sent.
struct S3RunSetup {
    std::shared_ptr<const UploadProtocol> protocol;
    QList<Endpoint> gateways;
    S3TargetSpec spec; // with the region and addressing it settled on

    // The failure's userMessage says what to set or type.
    static S3Result<S3RunSetup> prepare(const UploadPlan &plan, const S3CredentialsLoader &loader);
    // What is wrong with the target as typed (the bucket URL, a gateway with a path), before
    // any key is looked for: a usage error for the front ends.
    static std::optional<QString> targetProblem(const S3TargetSpec &spec, const QList<Endpoint> &gateways);
};

} // namespace multilane
