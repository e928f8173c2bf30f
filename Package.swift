// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Cravey",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CraveyKit", targets: ["CraveyKit"]),
        .executable(name: "cravey", targets: ["cravey"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswresample libswscale libavdevice",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev",
                              "libswresample-dev", "libswscale-dev", "libavdevice-dev"])]
        ),
        .systemLibrary(
            name: "CPulseAudio",
            providers: [.apt(["libpulse-dev"])]
        ),
        .target(
            name: "CraveyKit",
            dependencies: [
                "CFFmpeg",
                "CPulseAudio",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "cravey",
            dependencies: [
                "CraveyKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Real-component fixtures the test targets share: the sound server, virtual microphones,
        // tones, and FFmpeg's command-line tools as independent witnesses.
        .target(
            name: "CraveyTestSupport",
            dependencies: ["CraveyKit"],
            path: "Tests/CraveyTestSupport"
        ),
        .testTarget(
            name: "CraveyKitTests",
            dependencies: ["CraveyKit", "CraveyTestSupport"]
        ),
        // In-process measurements for scripts/bench.
        .executableTarget(
            name: "cravey-bench",
            dependencies: ["CraveyKit"],
            path: "Benchmarks/cravey-bench"
        ),
        .executableTarget(
            name: "cravey-test-helper",
            dependencies: ["CraveyKit"],
            path: "Tests/CraveyTestHelper"
        ),
        .testTarget(
            name: "CraveyCLITests",
            dependencies: ["CraveyKit", "CraveyTestSupport", "cravey", "cravey-test-helper"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
