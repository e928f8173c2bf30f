import Foundation

/// The Xlib functions ``X11Connection`` uses, looked up in `libX11.so.6` once per process (SDL
/// and libpulse have it loaded already). Loading it installs the process-wide I/O error handler
/// that returns instead of ending the process.
// @unchecked Sendable: immutable after loading, addresses of C functions.
struct LibX11: @unchecked Sendable {
    typealias ExitHandler = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void

    static let shared = Result { () throws(SDLError) in try LibX11() }

    let setIOErrorExitHandler: @convention(c) (OpaquePointer?, ExitHandler?, UnsafeMutableRawPointer?) -> Void
    let connectionNumber: @convention(c) (OpaquePointer?) -> Int32
    let pending: @convention(c) (OpaquePointer?) -> Int32

    /// The corresponding C functions are `dlopen`, `dlsym` and `XSetIOErrorHandler`.
    private init() throws(SDLError) {
        let library = try LoadedLibrary("libX11.so.6") { SDLError(operation: "loading libX11", message: $0) }
        setIOErrorExitHandler = try library.symbol("XSetIOErrorExitHandler")
        connectionNumber = try library.symbol("XConnectionNumber")
        pending = try library.symbol("XPending")
        let setIOErrorHandler: @convention(c) ((@convention(c) (OpaquePointer?) -> Int32)?) -> (@convention(c) (OpaquePointer?) -> Int32)?
            = try library.symbol("XSetIOErrorHandler")
        // Xlib's own prints "X connection to :0 broken" and exits; this returns, so the
        // display's exit handler runs next (``X11Connection``'s marks the connection lost).
        _ = setIOErrorHandler { _ in 0 }
    }
}
