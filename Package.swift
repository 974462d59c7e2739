// swift-tools-version: 6.2
import PackageDescription

// MARK: - Dependencies

let dependencies: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["CommandLineArguments"]),
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
]

let log = Target.Dependency.product(name: "Logging", package: "swift-log")
let metrics = Target.Dependency.product(name: "Metrics", package: "swift-metrics")
let lifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let nio: [Target.Dependency] = ["NIOCore", "NIOPosix", "NIOHTTP1"].map { .product(name: $0, package: "swift-nio") }

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

// MARK: - Shared modules

let shared: [Target] = [
    .systemLibrary(
        name: "CZeroMQ",
        path: "Shared/CZeroMQ",
        pkgConfig: "libzmq",
        providers: [.apt(["libzmq3-dev"])]
    ),
    .systemLibrary(
        name: "CCurl",
        path: "Shared/CCurl",
        pkgConfig: "libcurl",
        providers: [.apt(["libcurl4-openssl-dev"])]
    ),
    .systemLibrary(
        name: "CArgon2",
        path: "Shared/CArgon2",
        pkgConfig: "libargon2",
        providers: [.apt(["libargon2-dev"])]
    ),
    .systemLibrary(
        name: "CQPDF",
        path: "Shared/CQPDF",
        pkgConfig: "libqpdf",
        providers: [.apt(["libqpdf-dev"])]
    ),
    .systemLibrary(
        name: "CVips",
        path: "Shared/CVips",
        pkgConfig: "vips",
        providers: [.apt(["libvips-dev"])]
    ),
    .systemLibrary(
        name: "CHaru",
        path: "Shared/CHaru",
        providers: [.apt(["libhpdf-dev"])]
    ),
    .target(name: "ZeroMQ", dependencies: ["CZeroMQ"], path: "Shared/ZeroMQ", swiftSettings: swiftSettings),
    .target(name: "Envelope", path: "Shared/Envelope", swiftSettings: swiftSettings),
    // What every contract shares: the operation declaration, HTTP bindings, schemas from types.
    .target(name: "Contracts", dependencies: ["Envelope"], path: "Shared/Contracts", swiftSettings: swiftSettings),
    .target(
        name: "Bus",
        dependencies: [
            "ZeroMQ", "Envelope", log, metrics, lifecycle,
            .product(name: "DequeModule", package: "swift-collections"),
            .product(name: "HeapModule", package: "swift-collections"),
        ],
        path: "Shared/Bus",
        swiftSettings: swiftSettings
    ),
    .target(
        name: "ServiceSupport",
        dependencies: [
            "Bus", "Envelope", "ZeroMQ", log, metrics, lifecycle,
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ] + nio,
        path: "Shared/ServiceSupport",
        swiftSettings: swiftSettings
    ),
    // The service kit: a service's definition, its handlers with the idempotency its declarations
    // promise, and the host that runs it.
    .target(
        name: "ServiceKit",
        dependencies: [
            "Bus", "Contracts", "Envelope", "PostgresSupport", "ServiceSupport", "ZeroMQ", log, lifecycle,
            .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Crypto", package: "swift-crypto"),
        ],
        path: "Shared/ServiceKit",
        swiftSettings: swiftSettings
    ),
    .target(
        name: "PostgresSupport",
        dependencies: [
            "Bus", "Envelope", log, metrics, lifecycle,
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        path: "Shared/PostgresSupport",
        swiftSettings: swiftSettings
    ),
    // Uploaded images: checked and re-encoded with libvips, kept in the service's schema.
    .target(
        name: "Media",
        dependencies: ["CVips", "Contracts", "Envelope", "PostgresSupport", .product(name: "NIOPosix", package: "swift-nio"), .product(name: "PostgresNIO", package: "postgres-nio")],
        path: "Shared/Media",
        swiftSettings: swiftSettings
    ),
    // Access tokens: ES256 JWTs the auth service signs and the gateway verifies from the JWKS.
    .target(
        name: "AccessTokens",
        dependencies: [
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        path: "Shared/AccessTokens",
        swiftSettings: swiftSettings
    ),
]

// MARK: - Services

/// A product service's targets and its executable, named like its bus service (`refund-calculator`).
struct ServicePackage {
    let name: String
    let targets: [Target]
    let product: Product
}

/// A product service in `Services/<name>`: its contract target `<name>Contract` (the messages callers
/// import, in `Contract/`), its library `<name>Service` (its definition, handlers, repositories,
/// migrations) and its executable `<product>` (in `App/`, a few lines). `calls` names the services
/// whose operations it calls: its contract lists them (its call rights on the bus).
func service(_ name: String, product: String, calls: [String] = [], dependencies: [Target.Dependency], resources: [Resource] = []) -> ServicePackage {
    ServicePackage(
        name: name,
        targets: [
            .target(
                name: "\(name)Contract", dependencies: ["Contracts", "Envelope"] + calls.map { .target(name: "\($0)Contract") },
                path: "Services/\(name)/Contract", swiftSettings: swiftSettings),
            .target(
                name: "\(name)Service", dependencies: [.target(name: "\(name)Contract"), "ServiceKit"] + dependencies, path: "Services/\(name)",
                exclude: ["App", "Contract", "README.md"], resources: resources, swiftSettings: swiftSettings),
            .executableTarget(
                name: name, dependencies: [.target(name: "\(name)Service"), "ServiceKit"], path: "Services/\(name)/App", swiftSettings: swiftSettings),
        ],
        product: .executable(name: product, targets: [name]))
}

/// Every product service, one call each: its targets here, its executable among the products, its
/// contract in the catalog and its definition in `MelonServices` (whose list, `MelonServices.all`, a
/// test holds to this one).
let productServices: [ServicePackage] = [
    // Outgoing mail (and, with the tax-form work, PDF filling).
    service(
        "PdfEmail", product: "pdf-email",
        dependencies: [
            "Bus", "CCurl", "CHaru", "CQPDF", "Contracts", "Envelope", "PostgresSupport", "ServiceSupport", log, metrics, lifecycle,
            .product(name: "NIOPosix", package: "swift-nio"), .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        resources: [.copy("Templates"), .copy("Migrations"), .copy("Blanks")]),
    // Accounts, email verification, sessions and the access-token keys.
    service(
        "Auth", product: "auth", calls: ["Notifications", "PdfEmail"],
        dependencies: [
            "AccessTokens", "Bus", "CArgon2", "Contracts", "Envelope", "Media", "NotificationsContract", "PdfEmailContract", "PostgresSupport", "ServiceCatalog",
            "ServiceSupport",
            log, metrics, .product(name: "NIOPosix", package: "swift-nio"), .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        resources: [.copy("Migrations"), .copy("Data")]),
    // The Irish PAYE refund estimator: rules as data per tax year, the estimate in integer cents.
    service(
        "RefundCalculator", product: "refund-calculator", calls: ["PdfEmail"],
        dependencies: [
            "Bus", "Contracts", "Envelope", "PdfEmailContract", "PostgresSupport", "ServiceSupport",
            .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Crypto", package: "swift-crypto"),
        ],
        resources: [.copy("Data"), .copy("Migrations")]),
    // Devices, pushes to APNs over HTTP/2 through a durable queue, schedules, the inbox and badges.
    service(
        "Notifications", product: "notifications",
        dependencies: [
            "Bus", "Contracts", "Envelope", "PostgresSupport", "ServiceSupport", log, metrics, lifecycle,
            .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ],
        resources: [.copy("Migrations")]),
    // The student tax helper: the interview and the rules as data per tax year, residency, the return.
    service(
        "TaxForm", product: "tax-form", calls: ["Auth", "Notifications", "PdfEmail"],
        dependencies: [
            "AuthContract", "Bus", "Contracts", "Envelope", "NotificationsContract", "PdfEmailContract", "PostgresSupport", "ServiceSupport",
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "PostgresNIO", package: "postgres-nio"),
        ],
        resources: [.copy("Data"), .copy("Migrations")]),
    // The roommates' app: households, grocery lists, chores, bills and balances, the board.
    service(
        "Household", product: "household", calls: ["Notifications"],
        dependencies: [
            "Bus", "Contracts", "Envelope", "Media", "NotificationsContract", "PostgresSupport", "ServiceSupport", .product(name: "PostgresNIO", package: "postgres-nio"),
        ],
        resources: [.copy("Migrations")]),
    // The closed university marketplace (listings, the feed and search, its chat) and Nebula's private chat.
    service(
        "MarketplaceChat", product: "marketplace-chat", calls: ["Notifications"],
        dependencies: [
            "Bus", "Contracts", "Envelope", "Media", "NotificationsContract", "PostgresSupport", "ServiceSupport",
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "PostgresNIO", package: "postgres-nio"),
        ],
        resources: [.copy("Migrations")]),
    // The fundraising app: campaigns and bookmarks over a double-entry ledger with karma points; household debts paid in the app.
    service(
        "Payments", product: "payments", calls: ["Notifications", "Household", "PdfEmail"],
        dependencies: [
            "Bus", "Contracts", "Envelope", "HouseholdContract", "Media", "NotificationsContract", "PdfEmailContract", "PostgresSupport", "ServiceSupport", log, metrics,
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "PostgresNIO", package: "postgres-nio"),
        ],
        resources: [.copy("Migrations")]),
]

let services: [Target] = [
    // The catalog of every product service's contract: the gateway's routes, auth's erase fan-out.
    .target(
        name: "ServiceCatalog",
        dependencies: ["Bus", "Contracts"] + productServices.map { .target(name: "\($0.name)Contract") },
        path: "Services/Catalog", swiftSettings: swiftSettings),
    // The HTTP API: the only Hummingbird user. A library so `melon` and the tests build the same app.
    .target(
        name: "GatewayService",
        dependencies: [
            "AccessTokens", "AuthContract", "Bus", "Contracts", "Envelope", "ServiceSupport", "ZeroMQ", log, metrics, lifecycle,
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "NIOCore", package: "swift-nio"),
        ],
        path: "Services/Gateway",
        exclude: ["App", "README.md"],
        swiftSettings: swiftSettings
    ),
    .executableTarget(
        name: "Gateway",
        dependencies: ["GatewayService", "Bus", "ServiceCatalog", "ServiceSupport"],
        path: "Services/Gateway/App",
        swiftSettings: swiftSettings
    ),
] + productServices.flatMap(\.targets) + [
    // Every product service's definition: what `melon` runs, the contract tests and the harness build.
    .target(
        name: "MelonServices", dependencies: ["ServiceKit"] + productServices.map { .target(name: "\($0.name)Service") },
        path: "Services/Melon/Services", swiftSettings: swiftSettings),
    // Everything in one process: the local default (deploy/run.sh) and small installs.
    .executableTarget(
        name: "Melon",
        dependencies: ["Bus", "GatewayService", "MelonServices", "ServiceCatalog", "ServiceKit", "ServiceSupport", "ZeroMQ"],
        path: "Services/Melon/App",
        swiftSettings: swiftSettings
    ),
]

// MARK: - Executables

let executables: [Target] = [
    .executableTarget(
        name: "Broker",
        dependencies: ["Bus", "ServiceCatalog", "ServiceSupport", "ZeroMQ"],
        path: "Services/Broker",
        exclude: ["README.md"],
        swiftSettings: swiftSettings
    ),
    // Test support: the test database, the stack launcher, harnesses and the `echo` fixture service.
    .target(
        name: "TestSupport",
        dependencies: [
            "AccessTokens", "AuthContract", "AuthService", "Bus", "Contracts", "Envelope", "GatewayService", "PostgresSupport", "RefundCalculatorContract",
            "RefundCalculatorService", "ServiceKit", "ServiceSupport", "ZeroMQ", log, lifecycle, .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"), .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ],
        path: "Tests/Support",
        swiftSettings: swiftSettings
    ),
    // A worker of the test-only `echo` service: used by integration tests and the bus benchmark.
    .executableTarget(
        name: "EchoWorker",
        dependencies: ["ServiceKit", "TestSupport"],
        path: "Tests/Fixtures/EchoWorker",
        swiftSettings: swiftSettings
    ),
    // Applies a folder of migrations from its own process: integration tests start several at once.
    .executableTarget(
        name: "MigrateProbe",
        dependencies: ["PostgresSupport", log],
        path: "Tests/Fixtures/MigrateProbe",
        swiftSettings: swiftSettings
    ),
    .executableTarget(
        name: "BusBenchmark",
        dependencies: ["Bus", "Contracts", "ZeroMQ", "TestSupport", "Envelope", log, lifecycle],
        path: "Benchmarks/BusBenchmark",
        swiftSettings: swiftSettings
    ),
    .executableTarget(
        name: "AuthBenchmark",
        dependencies: ["AccessTokens", "AuthService", .product(name: "JWTKit", package: "jwt-kit")],
        path: "Benchmarks/AuthBenchmark",
        swiftSettings: swiftSettings
    ),
    .executableTarget(
        name: "MediaBenchmark",
        dependencies: ["CVips", "Contracts", "Media"],
        path: "Benchmarks/MediaBenchmark",
        swiftSettings: swiftSettings
    ),
    .executableTarget(
        name: "NotificationsBenchmark",
        dependencies: ["Bus", "NotificationsContract", "NotificationsService", "TestSupport"],
        path: "Benchmarks/NotificationsBenchmark",
        swiftSettings: swiftSettings
    ),
    .executableTarget(
        name: "PaymentsBenchmark",
        dependencies: ["PaymentsService", "PostgresSupport", "ServiceKit", "TestSupport", .product(name: "PostgresNIO", package: "postgres-nio")],
        path: "Benchmarks/PaymentsBenchmark",
        swiftSettings: swiftSettings
    ),
    .executableTarget(
        name: "HTTPBenchmark",
        dependencies: [
            "AuthService", "Bus", "Contracts", "Envelope", "GatewayService", "PostgresSupport", "RefundCalculatorContract", "RefundCalculatorService",
            "PdfEmailService", "ServiceKit", "ServiceSupport", "TaxFormContract", "TaxFormService", "ZeroMQ", log, lifecycle,
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ],
        path: "Benchmarks/HTTPBenchmark",
        swiftSettings: swiftSettings
    ),
]

// MARK: - Tests

let tests: [Target] = [
    .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"], swiftSettings: swiftSettings),
    .testTarget(name: "EnvelopeTests", dependencies: ["Envelope"], swiftSettings: swiftSettings),
    .testTarget(name: "MediaTests", dependencies: ["CVips", "Contracts", "Envelope", "Media", "PostgresSupport", "TestSupport", .product(name: "NIOPosix", package: "swift-nio")], swiftSettings: swiftSettings),
    .testTarget(name: "GatewayTests", dependencies: ["GatewayService", "ServiceSupport"], swiftSettings: swiftSettings),
    .testTarget(name: "ContractsTests", dependencies: ["Contracts", "Envelope", "ServiceCatalog", "TestSupport"], swiftSettings: swiftSettings),
    .testTarget(
        name: "RepositoryTests",
        dependencies: ["Contracts", "Envelope", "GatewayService", "MelonServices", "ServiceCatalog", "ServiceKit", "ServiceSupport", "TestSupport"],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "RefundCalculatorTests", dependencies: ["RefundCalculatorContract", "RefundCalculatorService", "Contracts", "Envelope", "ServiceKit", "TestSupport"],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "HouseholdTests",
        dependencies: [
            "HouseholdContract", "HouseholdService", "NotificationsService", "Bus", "Contracts", "Envelope", "PostgresSupport", "ServiceKit",
            "TestSupport", .product(name: "PostgresNIO", package: "postgres-nio"),
        ],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "MarketplaceChatTests",
        dependencies: [
            "MarketplaceChatContract", "MarketplaceChatService", "Bus", "Contracts", "Envelope", "Media", "PostgresSupport", "ServiceKit", "TestSupport",
            .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Crypto", package: "swift-crypto"),
        ],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "PaymentsTests",
        dependencies: [
            "PaymentsContract", "PaymentsService", "HouseholdService", "Bus", "Contracts", "Envelope", "PostgresSupport", "ServiceKit", "ServiceSupport",
            "TestSupport", .product(name: "PostgresNIO", package: "postgres-nio"),
        ],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "AuthTests",
        dependencies: [
            "AuthService", "AccessTokens", "Media", "PostgresSupport", "ServiceKit", "ServiceSupport", "TestSupport",
            .product(name: "JWTKit", package: "jwt-kit"), .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "PdfEmailTests",
        dependencies: [
            "PdfEmailContract", "PdfEmailService", "Contracts", "Envelope", "PostgresSupport", "ServiceKit", "TestSupport",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "NotificationsTests",
        dependencies: [
            "Bus", "Envelope", "NotificationsContract", "NotificationsService", "PostgresSupport", "ServiceKit", "ServiceSupport", "TestSupport", log, lifecycle,
            .product(name: "JWTKit", package: "jwt-kit"), .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ],
        swiftSettings: swiftSettings),
    .testTarget(name: "TaxFormTests", dependencies: ["Envelope", "PdfEmailContract", "TaxFormContract", "TaxFormService"], swiftSettings: swiftSettings),
    .testTarget(name: "BusTests", dependencies: ["Bus", "Contracts", "Envelope", "ZeroMQ", "TestSupport", lifecycle], swiftSettings: swiftSettings),
    .testTarget(
        name: "PostgresSupportTests",
        dependencies: [
            "PostgresSupport", "Bus", "Envelope", "TestSupport", log, lifecycle, .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        resources: [.copy("Migrations")],
        swiftSettings: swiftSettings
    ),
    .testTarget(name: "ServiceSupportTests", dependencies: ["Bus", "ServiceSupport", "ZeroMQ", log, metrics], swiftSettings: swiftSettings),
    .testTarget(
        name: "ContractTests",
        dependencies: [
            "AuthContract", "AuthService", "Bus", "Contracts", "Envelope", "MarketplaceChatContract", "MarketplaceChatService", "Media", "MelonServices",
            "PaymentsService", "PdfEmailContract", "PdfEmailService", "PostgresSupport",
            "RefundCalculatorContract", "RefundCalculatorService", "ServiceCatalog", "ServiceKit", "ServiceSupport", "TestSupport",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        resources: [.copy("Examples")],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "IntegrationTests",
        dependencies: [
            "AccessTokens", "AuthContract", "AuthService", "Bus", "Contracts", "Envelope", "GatewayService", "NotificationsContract", "PdfEmailContract",
            "PostgresSupport", "RefundCalculatorContract", "RefundCalculatorService", "MelonServices", "ServiceCatalog", "ServiceKit", "TestSupport", "ServiceSupport", "ZeroMQ",
            lifecycle, log,
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
        ],
        swiftSettings: swiftSettings
    ),
]

// MARK: - Package

let package = Package(
    name: "melon",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "broker", targets: ["Broker"]),
        .executable(name: "gateway", targets: ["Gateway"]),
        .executable(name: "melon", targets: ["Melon"]),
    ] + productServices.map(\.product) + [
        .executable(name: "echo-worker", targets: ["EchoWorker"]),
        .executable(name: "bus-benchmark", targets: ["BusBenchmark"]),
        .executable(name: "http-benchmark", targets: ["HTTPBenchmark"]),
        .executable(name: "auth-benchmark", targets: ["AuthBenchmark"]),
        .executable(name: "notifications-benchmark", targets: ["NotificationsBenchmark"]),
        .executable(name: "payments-benchmark", targets: ["PaymentsBenchmark"]),
        .executable(name: "media-benchmark", targets: ["MediaBenchmark"]),
        .executable(name: "migrate-probe", targets: ["MigrateProbe"]),
    ],
    dependencies: dependencies,
    targets: shared + services + executables + tests
)
