import Foundation
import Synchronization

/// SDL's connection to an X display, watched so that losing it (the window killed with `xkill`,
/// the X server gone) closes the window instead of ending the process.
///
/// Xlib ends the process (`exit(1)`) when a connection fails, by default: its I/O error handler
/// prints and exits, and so does the display's exit handler after it. Here the process-wide
/// handler (`XSetIOErrorHandler`) returns, and this display's exit handler
/// (`XSetIOErrorExitHandler`, libX11 1.7 and later) only marks the connection lost: Xlib then
/// returns from the call that failed, and every later call on the display does nothing.
///
/// SDL opens a second connection to the same display, for waking a thread that waits in
/// `SDL_WaitEventTimeout`, which Xlib would still end the process for. So the window waits on
/// ``descriptor`` itself (with ``pendingEvents``) and takes SDL's events with `SDL_PollEvent`,
/// never waiting inside SDL; and once a connection is lost, SDL's video subsystem is not quit
/// (its quit would close that second connection, and a dead one ends the process).
package final class X11Connection {
    private let xlib: LibX11
    private let display: OpaquePointer
    private let lost = Atomic<Bool>(false)
    private static let anyLost = Atomic<Bool>(false)

    /// Whether some display's connection was lost in this process. It must then end with
    /// `_exit`: at `exit`, libGLX's destructor asks Xlib about the dead display and waits for
    /// good on its lock.
    package static var wasLost: Bool { anyLost.load(ordering: .acquiring) }

    /// The connection's socket, readable when the display sends something (or the connection ends).
    let descriptor: Int32

    /// Watches `display` (an Xlib `Display *`), whose connection must outlive this object
    /// (it does: it belongs to SDL's video subsystem, which holds this). Nil without libX11 1.7
    /// or later: then a lost connection still ends the process, as before.
    /// The corresponding C functions are `XSetIOErrorHandler`, `XSetIOErrorExitHandler` and
    /// `XConnectionNumber`.
    init?(display: OpaquePointer) {
        guard let xlib = try? LibX11.shared.get() else { return nil }
        self.xlib = xlib
        self.display = display
        descriptor = xlib.connectionNumber(display)
        xlib.setIOErrorExitHandler(display, { _, watched in
            guard let watched else { return }
            Unmanaged<X11Connection>.fromOpaque(watched).takeUnretainedValue().lost.store(true, ordering: .releasing)
            X11Connection.anyLost.store(true, ordering: .releasing)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Whether the connection failed: the display is gone for this process.
    var isLost: Bool { lost.load(ordering: .acquiring) }

    /// Events Xlib has read already or can read now without waiting, which `poll` on
    /// ``descriptor`` would not see. The corresponding C function is `XPending`.
    var pendingEvents: Bool { !isLost && xlib.pending(display) > 0 }
}

@available(*, unavailable)
extension X11Connection: Sendable {}
