import Foundation

// The fuzz targets' driver. Built by `scripts/fuzz` (CRAVEY_FUZZ=1: libFuzzer's coverage,
// AddressSanitizer and CRAVEY_FUZZING, see Package.swift), it hands the chosen target to libFuzzer:
//
//     cravey-fuzz TARGET [libFuzzer options and corpus folders]
//
// Built normally (as the tests build it), it runs the target once on each file named, and on
// each file in each folder named: the committed inputs that once crashed or hung cravey are
// replayed that way by the tests.
//
//     cravey-fuzz TARGET FILE_OR_FOLDER...

#if CRAVEY_FUZZING
/// The target named by the first argument, taken out of the arguments before libFuzzer reads them.
/// The corresponding C hook is `LLVMFuzzerInitialize`.
@_cdecl("LLVMFuzzerInitialize")
func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>,
                      _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> Int32 {
    let arguments = argv.pointee
    guard argc.pointee >= 2, let name = arguments[1].map({ String(cString: $0) }), let target = FuzzTarget(rawValue: name) else {
        Driver.usage()
    }
    FuzzTarget.selected = target
    for index in 1..<Int(argc.pointee) { arguments[index] = arguments[index + 1] }
    argc.pointee -= 1
    return 0
}

/// One input. The corresponding C hook is `LLVMFuzzerTestOneInput`.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.selected!.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// libFuzzer's driver, called from this program's own `main`: SwiftPM links an executable's entry
/// point as `main` (libFuzzer's own `main` is not used).
@_extern(c, "LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<Int32>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

@main
enum Driver {
    static func usage() -> Never {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
        FileHandle.standardError.write(Data("usage: cravey-fuzz \(names) [libFuzzer options | inputs...]\n".utf8))
        exit(64)
    }

    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv) { data, size in fuzzerTestOneInput(data, size) })
    }
}
#else
@main
enum Driver {
    static func usage() -> Never {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
        FileHandle.standardError.write(Data("usage: cravey-fuzz \(names) [libFuzzer options | inputs...]\n".utf8))
        exit(64)
    }

    /// Runs the target once on each file named, and on each file in each folder named.
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else { usage() }
        var inputs: [URL] = []
        for path in arguments.dropFirst(2) {
            let url = URL(fileURLWithPath: path)
            if let names = try? FileManager.default.contentsOfDirectory(atPath: path) {
                inputs += names.sorted().map { url.appendingPathComponent($0) }
            } else {
                inputs.append(url)
            }
        }
        for input in inputs {
            let data = try Data(contentsOf: input)
            let started = Date()
            data.withUnsafeBytes { target.run($0) }
            print("\(target.rawValue) \(input.path): \(String(format: "%.3f", Date().timeIntervalSince(started))) s")
        }
    }
}
#endif
