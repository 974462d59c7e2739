// swift-tools-version: 6.2
// A Swift client of Melon generated from docs/openapi.json, as an app developer would make it, and a
// journey that drives a running `melon` through it. Its own package, so the main build does not
// carry the generator.
import PackageDescription

let package = Package(
    name: "melon-client",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        // URLSession (FoundationNetworking, over libcurl on Linux), not async-http-client: the main
        // build's SwiftNIO stack is not built a second time here.
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .target(
            name: "MelonAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]),
        .executableTarget(
            name: "melon-journey",
            dependencies: [
                "MelonAPI",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]),
    ]
)
