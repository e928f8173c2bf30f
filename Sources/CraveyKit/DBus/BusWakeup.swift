import Foundation
internal import CSDBus

/// Wakes the thread that owns a ``SessionBus`` from any other thread: an eventfd it waits on
/// beside the bus (``SessionBus/process(orWakeOn:)``).
final class BusWakeup: Sendable {
    let descriptor: Int32

    /// The corresponding C function is `eventfd`.
    init() throws(BusError) {
        descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard descriptor >= 0 else { throw BusError(code: -errno, operation: "eventfd") }
    }

    deinit { close(descriptor) }

    /// Makes the descriptor readable until ``reset()``. The corresponding C function is `eventfd_write`.
    func ring() {
        _ = eventfd_write(descriptor, 1)
    }

    /// Makes it unreadable again. The corresponding C function is `eventfd_read`.
    func reset() {
        var count: eventfd_t = 0
        _ = eventfd_read(descriptor, &count)
    }
}
