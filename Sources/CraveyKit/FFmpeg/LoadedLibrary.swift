import Foundation

/// A shared library opened with `dlopen` rather than linked, for FFmpeg libraries only some
/// commands need (libavfilter to turn a picture, libavdevice to open a camera): linked, they would
/// load dozens of libraries into every process, the audio recorder's included.
///
/// The library stays loaded for the life of the process.
// @unchecked Sendable: the handle is immutable and `dlsym` may be called from any thread.
struct LoadedLibrary: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    /// The error a missing library or function is reported with (a filter or device not found).
    private let missing: FFmpegError

    /// Opens `soname` (`libavfilter.so.8`). The corresponding C function is `dlopen`.
    init(_ soname: String, missing: FFmpegError) throws(FFmpegError) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? soname
            throw FFmpegError(code: missing.code, operation: "dlopen(\(reason))")
        }
        self.handle = handle
        self.missing = missing
    }

    /// The function named `name`, as the C function type `T` the caller stores it in.
    /// The corresponding C function is `dlsym`.
    func symbol<T>(_ name: String) throws(FFmpegError) -> T {
        guard let address = dlsym(handle, name) else {
            throw FFmpegError(code: missing.code, operation: "dlsym(\(name))")
        }
        return unsafeBitCast(address, to: T.self)
    }
}
