#include "S3RunSetup.h"

#include "S3Protocol.h"
#include "UploadPlan.h"

namespace multilane {

std::optional<QString> S3RunSetup::targetProblem(const S3TargetSpec &spec, const QList<Endpoint> &gateways)
{
    const S3Result<S3Target> target =
        S3Target::parse(spec.url, urlsOf(gateways), spec.region, spec.addressing);
    if (!target)
        return target.failure().userMessage;
    return std::nullopt;
}

S3Result<S3RunSetup> S3RunSetup::prepare(const UploadPlan &plan, const S3CredentialsLoader &loader)
{
    S3ClientSettings settings;
    if (plan.s3Credentials) {
        // Keys the front end holds (the window's keyring): the rest is the plan's own.
        settings.credentials = *plan.s3Credentials;
        settings.region = QString::fromLatin1(S3Target::DefaultRegion);
    } else {
        S3Result<S3ClientSettings> loaded = loader.load(plan.s3.profile);
        if (!loaded)
            return loaded.failure();
        settings = loaded.value();
    }
    S3RunSetup setup;
    setup.spec = plan.s3;
    if (setup.spec.region.isEmpty())
        setup.spec.region = settings.region;
    if (setup.spec.addressing == S3Addressing::Auto) {
        if (const auto style = s3AddressingFromName(settings.addressingStyle))
            setup.spec.addressing = *style;
    }
    setup.gateways = plan.endpoints;
    if (setup.gateways.isEmpty()) {
        // As aws-cli: the configured endpoint (AWS_ENDPOINT_URL, the profile's), else AWS's.
        Endpoint endpoint;
        endpoint.url = settings.endpointUrl.isEmpty()
                           ? S3Target::awsEndpoint(setup.spec.region)
                           : QUrl(settings.endpointUrl).adjusted(QUrl::StripTrailingSlash);
        setup.gateways.append(endpoint);
    }
    // AWS_CA_BUNDLE (or the profile's ca_bundle) is trusted as well as the system's CAs, as
    // aws-cli does, by every https gateway that names no CA of its own.
    if (!settings.caBundle.isEmpty()) {
        if (const auto problem = EndpointParser::applyTlsDefaults(setup.gateways, settings.caBundle, {}))
            return S3Failure::invalidInput(*problem +
                                           QStringLiteral(" (AWS_CA_BUNDLE or the profile's ca_bundle)"));
    }
    S3Result<S3Target> target =
        S3Target::parse(setup.spec.url, urlsOf(setup.gateways), setup.spec.region, setup.spec.addressing);
    if (!target)
        return target.failure();
    setup.protocol = std::make_shared<S3Protocol>(target.value(), settings.credentials,
                                                  S3ProtocolOptions::forTarget(target.value()));
    return setup;
}

} // namespace multilane
