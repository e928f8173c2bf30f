import Foundation

/// A shared library opened with `dlopen` rather than linked, for libraries only some commands
/// need (libavfilter to turn a picture, libavdevice to open a camera, libsystemd's sd-bus when a
/// session bus exists, SDL2 to show a video): linked, they would load dozens of libraries into every process, the audio
/// recorder's included. A missing library or function is a `Failure`, the error of the C library
/// it stands for.
///
/// The library stays loaded for the life of the process.
// @unchecked Sendable: the handle is immutable and `dlsym` may be called from any thread.
struct LoadedLibrary<Failure: Error>: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    /// The error for a failed operation (`dlopen(...)`, `dlsym(...)`).
    private let failure: @Sendable (_ operation: String) -> Failure

    /// Opens `soname` (`libavfilter.so.8`). The corresponding C function is `dlopen`.
    init(_ soname: String, failure: @escaping @Sendable (_ operation: String) -> Failure) throws(Failure) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            throw failure("dlopen(\(dlerror().map { String(cString: $0) } ?? soname))")
        }
        self.handle = handle
        self.failure = failure
    }

    /// The function named `name`, as the C function type `T` the caller stores it in.
    /// The corresponding C function is `dlsym`.
    func symbol<T>(_ name: String) throws(Failure) -> T {
        guard let address = dlsym(handle, name) else { throw failure("dlsym(\(name))") }
        return unsafeBitCast(address, to: T.self)
    }
}

extension LoadedLibrary where Failure == FFmpegError {
    /// Opens one of FFmpeg's libraries; a missing one, or a missing function, is reported with
    /// `missing`'s code (a filter or device not found).
    init(_ soname: String, missing: FFmpegError) throws(FFmpegError) {
        try self.init(soname) { FFmpegError(code: missing.code, operation: $0) }
    }
}
