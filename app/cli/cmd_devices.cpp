// `graphlens devices [--json]`: the Vulkan devices the backend can use, with the index --device
// takes, the type, the API version and timestamp support (valid bits of the compute queue family,
// nanoseconds per tick). Without any device: one sentence saying why, and exit status 1.
#include "app/cli/cli.h"
#include "core/runtime/backend_registry.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <iostream>

namespace graphlens::cli {

int runDevices(const QStringList& args) {
    QCommandLineParser parser;
    parser.setApplicationDescription("List the Vulkan devices.");
    parser.addOption({"json", "print JSON"});
    if (auto status = parseArguments(parser, args)) return *status;
    if (!parser.positionalArguments().isEmpty()) return fail("devices takes no arguments");
    const DeviceListing listing = listVulkanDevices();
    if (parser.isSet("json")) {
        QJsonArray devices;
        for (const ComputeDevice& d : listing.devices)
            devices.append(QJsonObject{{"index", d.index}, {"name", QString::fromStdString(d.name)},
                                       {"type", QString::fromStdString(d.type)},
                                       {"api_version", QString::fromStdString(d.apiVersion)},
                                       {"timestamp_valid_bits", int(d.timestampValidBits)},
                                       {"timestamp_period_ns", double(d.timestampPeriod)}});
        QJsonObject json{{"devices", devices}};
        if (!listing.problem.empty()) json["problem"] = QString::fromStdString("no Vulkan device: " + listing.problem);
        std::cout << QJsonDocument(json).toJson(QJsonDocument::Indented).toStdString();
        return listing.devices.empty() ? 1 : 0;
    }
    if (listing.devices.empty()) return fail("no Vulkan device: " + listing.problem);
    std::printf("%-5s %-40s %-10s %-8s %s\n", "index", "name", "type", "api", "timestamps");
    for (const ComputeDevice& d : listing.devices) {
        std::string timestamps = "none";
        if (d.timestampValidBits)
            timestamps = std::to_string(d.timestampValidBits) + " bits, " + std::to_string(d.timestampPeriod) + " ns/tick";
        std::printf("%-5d %-40s %-10s %-8s %s\n", d.index, d.name.c_str(), d.type.c_str(), d.apiVersion.c_str(),
                    timestamps.c_str());
    }
    return 0;
}

} // namespace graphlens::cli
