import Foundation

/// A shared library opened with `dlopen` rather than linked, for libraries only some commands
/// need (libavfilter to turn a picture, libavdevice to open a camera, SDL2 to show a video):
/// linked, they would load dozens of libraries into every process, the audio recorder's included.
///
/// The library stays loaded for the life of the process. A missing library or function is
/// reported as `Failure`, made from the name of what is missing (with `dlerror`'s reason).
// @unchecked Sendable: the handle is immutable, `dlsym` may be called from any thread, and
// `missing` is a `@Sendable` function.
struct LoadedLibrary<Failure: Error>: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    private let missing: @Sendable (String) -> Failure

    /// Opens `soname` (`libavfilter.so.8`). The corresponding C function is `dlopen`.
    init(_ soname: String, missing: @escaping @Sendable (String) -> Failure) throws(Failure) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            throw missing("dlopen(\(dlerror().map { String(cString: $0) } ?? soname))")
        }
        self.handle = handle
        self.missing = missing
    }

    /// The function named `name`, as the C function type `T` the caller stores it in.
    /// The corresponding C function is `dlsym`.
    func symbol<T>(_ name: String) throws(Failure) -> T {
        guard let address = dlsym(handle, name) else { throw missing("dlsym(\(name))") }
        return unsafeBitCast(address, to: T.self)
    }
}

extension LoadedLibrary where Failure == FFmpegError {
    /// Opens one of FFmpeg's libraries; what is missing is reported with `missing`'s code (a
    /// filter or device not found).
    init(_ soname: String, missing: FFmpegError) throws(FFmpegError) {
        try self.init(soname) { FFmpegError(code: missing.code, operation: $0) }
    }
}
