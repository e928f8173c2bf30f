// swift-tools-version:6.0
import PackageDescription

// `scripts/fuzz` sets CRAVEY_FUZZ=1 to build cravey-fuzz for libFuzzer, in release: cravey's own
// code (CraveyCore, CraveyKit and the fuzz targets) with libFuzzer's coverage and AddressSanitizer,
// the dependencies as a release build has them, so that `scripts/test` builds those once for the
// package check and the fuzzing (in one build folder). Never set for a build of the package as a
// dependency: SwiftPM refuses unsafe flags there.
let fuzzing = Context.environment["CRAVEY_FUZZ"] == "1"
let fuzzed: [SwiftSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []

let package = Package(
    name: "Cravey",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CraveyKit", targets: ["CraveyKit"]),
        .library(name: "CraveyCore", targets: ["CraveyCore"]),
        .executable(name: "cravey", targets: ["cravey"]),
        .executable(name: "cravey-media", targets: ["cravey-media"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswresample libswscale",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev",
                              "libswresample-dev", "libswscale-dev", "libavdevice-dev",
                              "libavfilter-dev"])]
        ),
        .systemLibrary(
            name: "CPulseAudio",
            providers: [.apt(["libpulse-dev"])]
        ),
        // zlib's deflate and CRC-32, for the PNG of a clip's waveform; the system's, which
        // FFmpeg already loads into cravey-media.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // OpenSSL 3's libcrypto, the system's: SHA-256 of a backup's files; ChaCha20-Poly1305,
        // HKDF, HMAC and scrypt for an encrypted one (the age format). No primitive of cravey's
        // own. (swift-crypto compiled BoringSSL into every build: about 300 CPU seconds of each
        // test run's three builds, with scrypt unoptimised in the debug one.)
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // <linux/videodev2.h>, to ask a camera what it offers; headers only, nothing linked.
        .systemLibrary(
            name: "CV4L2",
            providers: [.apt(["linux-libc-dev"])]
        ),
        // <systemd/sd-bus.h>, for the desktop's media controls (MPRIS) and notifications; headers
        // only, nothing linked: libsystemd is loaded with dlopen when a session bus exists.
        .systemLibrary(
            name: "CSDBus",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // <SDL2/SDL.h>, for a video's window; headers only, nothing linked: SDL2 is loaded with
        // dlopen when a video plays with a display.
        .systemLibrary(
            name: "CSDL2",
            providers: [.apt(["libsdl2-dev"])]
        ),
        // ncurses (wide characters) and its terminfo, for the home screen: the terminal's own
        // capabilities and keys, and only what changed written at each redraw.
        // (No pkg-config: ncursesw's adds -D_XOPEN_SOURCE=600, which SwiftPM refuses; its headers
        // are in /usr/include/ncursesw and the module map links it.)
        .systemLibrary(
            name: "CNcurses",
            providers: [.apt(["libncurses-dev"])]
        ),
        // pipe2 and posix_spawn's closefrom, glibc's GNU additions that Swift's Glibc module leaves
        // out: a child process started with pipes of its own and no other descriptor of ours.
        .systemLibrary(
            name: "CSpawn"
        ),
        // The library without media: recordings in SQLite, the Recordings/ folder, and the use
        // cases that only read and change those. It links neither FFmpeg nor PulseAudio, whose
        // ~200 shared libraries cost a process about 80 ms to load.
        .target(
            name: "CraveyCore",
            dependencies: [
                "CSpawn",
                "CZlib",
                "COpenSSL",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: fuzzed
        ),
        // Recording, probing, thumbnails, import and playback over FFmpeg and PulseAudio.
        .target(
            name: "CraveyKit",
            dependencies: [
                "CraveyCore",
                "CFFmpeg",
                "CPulseAudio",
                "CV4L2",
                "CSDBus",
                "CSDL2",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: fuzzed
        ),
        // The command line: the library commands, every command's options and help, the route
        // from verb to executable, output and exit codes; shared by both executables.
        .target(
            name: "CraveyCommands",
            dependencies: [
                "CraveyCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // What a person runs. Links CraveyCore only, so library commands start fast.
        .executableTarget(
            name: "cravey",
            dependencies: ["CraveyCommands"]
        ),
        // The terminal app: the home screen, the look back after a recording, the player line,
        // the meter, the key reader and the terminal's mode, as `cravey-media`'s commands use them.
        // No command-line layer: it reads the library through the door, writes through
        // CraveyCore's Presentation/ (Terminal, Format), and is handed its settings and flags as
        // values by the command that opens it.
        .target(
            name: "CraveyTerminal",
            dependencies: [
                "CraveyKit",
                "CNcurses",
            ]
        ),
        // The commands that need FFmpeg and PulseAudio (their command lines are CraveyCommands'),
        // what `cravey-media` runs; a library, so that the tests run them in process.
        .target(
            name: "CraveyMediaCommands",
            dependencies: [
                "CraveyCommands",
                "CraveyKit",
                "CraveyTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Runs the media commands (CraveyMediaCommands); `cravey` hands them over by verb before
        // parsing.
        .executableTarget(
            name: "cravey-media",
            dependencies: [
                "CraveyMediaCommands",
                "CraveyCommands",
                "CraveyKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Real-component fixtures the test targets share: the sound server, virtual microphones,
        // tones, and FFmpeg's command-line tools as independent witnesses.
        .target(
            name: "CraveyTestSupport",
            dependencies: ["CraveyKit", "CSpawn"],
            path: "Tests/CraveyTestSupport"
        ),
        // CraveyCore alone: errors, atomic writes, output, the library location.
        .testTarget(
            name: "CraveyCoreTests",
            dependencies: [
                "CraveyCore",
                "CraveyTestSupport",   // its child processes (TestProcess) only
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "CraveyKitTests",
            dependencies: ["CraveyKit", "CraveyCommands", "CraveyTestSupport", .product(name: "SystemPackage", package: "swift-system")]
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
        // The fuzz targets (scripts/fuzz builds them for libFuzzer); built normally, it replays
        // inputs, as the tests do with the ones that once crashed.
        .executableTarget(
            name: "cravey-fuzz",
            dependencies: ["CraveyCore", "CraveyKit"],
            path: "Tests/CraveyFuzz",
            swiftSettings: fuzzed + (fuzzing ? [.define("CRAVEY_FUZZING"), .enableExperimentalFeature("Extern")] : []),
            linkerSettings: fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []
        ),
        // The command layer in process: parsing, validation, the times and words a person types,
        // and both executables' commands run as their mains run them.
        .testTarget(
            name: "CraveyCommandsTests",
            dependencies: ["CraveyCommands", "CraveyMediaCommands", "CraveyTestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The terminal app's behaviour as values: keys in, state and screen text out, on real
        // SQLite libraries, without a terminal.
        .testTarget(
            name: "CraveyTerminalTests",
            dependencies: ["CraveyTerminal", "CraveyTestSupport"]
        ),
        .testTarget(
            name: "CraveyCLITests",
            dependencies: ["CraveyKit", "CraveyCommands", "CraveyTestSupport", "cravey", "cravey-media", "cravey-test-helper", "cravey-fuzz"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
