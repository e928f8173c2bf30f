import Foundation
internal import CSDBus

/// A connection to the desktop's session bus, through sd-bus, owned by one thread (sd-bus is not
/// thread-safe): it serves objects, sends signals, calls methods and waits for what arrives.
final class SessionBus {
    private let bus: SDBus.Bus
    private let sd: SDBus
    /// The handlers registered with sd-bus, retained until the bus is closed.
    private var handlers: [Unmanaged<Handler>] = []

    /// Whether the environment names a session bus this process may use: `DBUS_SESSION_BUS_ADDRESS`
    /// of local sockets only (`unix:`: a `tcp:` address would open a network socket, which cravey
    /// never does), or, without it, the socket `$XDG_RUNTIME_DIR/bus`, where sd-bus looks then.
    static func exists(in environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty {
            return address.split(separator: ";").allSatisfy { $0.hasPrefix("unix:") }
        }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        var status = stat()
        return stat(runtime + "/bus", &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK
    }

    /// Connects to the session bus (check ``exists(in:)`` first: this loads libsystemd). Blocks
    /// for the connection's handshake. The corresponding C function is `sd_bus_open_user`.
    init() throws(BusError) {
        sd = try SDBus.loaded.get()
        var bus: SDBus.Bus?
        try BusError.check(sd.openUser(&bus), "sd_bus_open_user")
        guard let bus else { throw BusError(code: -ENOMEM, operation: "sd_bus_open_user") }
        self.bus = bus
    }

    /// Closes the connection once what was sent has gone; the bus drops the names it held.
    /// The corresponding C function is `sd_bus_flush_close_unref`.
    deinit {
        _ = sd.flushCloseUnref(bus)
        for handler in handlers { handler.release() }
    }

    /// Asks for a well-known name; false when another connection owns it. The corresponding C
    /// function is `sd_bus_request_name`.
    func requestName(_ name: String) throws(BusError) -> Bool {
        let result = sd.requestName(bus, name, 0)
        if result == -EEXIST { return false }
        try BusError.check(result, "sd_bus_request_name(\(name))")
        return true
    }

    /// Answers every method call to the object at `path` with what `answer` returns: the reply's
    /// values, nil for a method it does not know (sd-bus replies UnknownMethod), or an error
    /// reply it throws. The corresponding C function is `sd_bus_add_object`.
    func serve(path: String, _ answer: @escaping (BusMessage) throws -> [BusValue]?) throws(BusError) {
        let (sd, bus) = (sd, bus)
        try add(Handler(sd) { message, error in
            do {
                guard let values = try answer(message) else { return 0 }
                var reply: SDBus.Message?
                try BusError.check(sd.newMethodReturn(message.pointer, &reply), "sd_bus_message_new_method_return")
                guard let reply else { return -ENOMEM }
                let owned = BusMessage(owning: reply, sd)
                try owned.append(values)
                try BusError.check(sd.send(bus, reply, nil), "sd_bus_send")
                return 1
            } catch let failure as BusMethodError {
                return sd.errorSet(error, failure.name, failure.message)
            } catch let failure as BusError {
                return failure.code
            } catch {
                return -EINVAL
            }
        }) { sd.addObject(bus, nil, path, $0, $1) }
    }

    /// Calls `handle` with each signal that `match` (a D-Bus match rule) selects. The
    /// corresponding C function is `sd_bus_add_match`.
    func subscribe(_ match: String, _ handle: @escaping (BusMessage) -> Void) throws(BusError) {
        try add(Handler(sd) { message, _ in handle(message); return 0 }) { sd.addMatch(bus, nil, match, $0, $1) }
    }

    private func add(_ handler: Handler, _ register: (SDBus.Handler, UnsafeMutableRawPointer) -> Int32) throws(BusError) {
        let retained = Unmanaged.passRetained(handler)
        let result = register({ message, userdata, error in
            guard let message, let userdata else { return 0 }
            let handler = Unmanaged<Handler>.fromOpaque(userdata).takeUnretainedValue()
            return handler.body(BusMessage(borrowing: message, handler.sd), error)
        }, retained.toOpaque())
        guard result >= 0 else {
            retained.release()
            throw BusError(code: result, operation: "sd_bus_add_object")
        }
        handlers.append(retained)
    }

    /// Sends a signal from `path`. The corresponding C functions are `sd_bus_message_new_signal`
    /// and `sd_bus_send`.
    func signal(path: String, interface: String, member: String, _ values: [BusValue]) throws(BusError) {
        var message: SDBus.Message?
        try BusError.check(sd.newSignal(bus, &message, path, interface, member), "sd_bus_message_new_signal(\(member))")
        guard let message else { return }
        let owned = BusMessage(owning: message, sd)
        try owned.append(values)
        try BusError.check(sd.send(bus, message, nil), "sd_bus_send(\(member))")
    }

    /// Calls a method and waits up to `timeout` seconds for its reply's values (basic types and
    /// variants). A D-Bus error reply is thrown with its name (`ServiceUnknown` when nobody owns
    /// `destination`). The corresponding C function is `sd_bus_call`.
    func call(_ destination: String, path: String, interface: String, member: String, _ values: [BusValue],
              timeout: Double) throws(BusError) -> [BusValue] {
        var message: SDBus.Message?
        try BusError.check(sd.newMethodCall(bus, &message, destination, path, interface, member), "sd_bus_message_new_method_call(\(member))")
        guard let message else { return [] }
        let owned = BusMessage(owning: message, sd)
        try owned.append(values)
        var error = sd_bus_error()
        defer { sd.errorFree(&error) }
        var reply: SDBus.Message?
        let result = sd.call(bus, message, UInt64(timeout * 1_000_000), &error, &reply)
        guard result >= 0, let reply else {
            throw BusError(code: min(result, -EIO), operation: "\(interface).\(member)",
                           name: error.name.map { String(cString: $0) })
        }
        return try BusMessage(owning: reply, sd).arguments()
    }

    /// Handles what has arrived (method calls, signals, replies) until nothing is left, then
    /// waits until the bus has more, `wake` rings (and is reset), one of `also` is readable (the
    /// caller reads it), the bus's own timeout passes, or `atMost` milliseconds have (when
    /// given). The corresponding C functions are `sd_bus_process`, `sd_bus_get_events`,
    /// `sd_bus_get_timeout` and `poll`.
    func process(orWakeOn wake: BusWakeup, also: [Int32] = [], atMost: Int32? = nil) throws(BusError) {
        while try BusError.check(sd.process(bus, nil), "sd_bus_process") > 0 {}
        var until: UInt64 = 0
        try BusError.check(sd.getTimeout(bus, &until), "sd_bus_get_timeout")
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        var milliseconds = until == .max ? -1 : Int32(clamping: (until.subtractingReportingOverflow(nowMicroseconds).overflow
                                                                   ? 0 : until - nowMicroseconds + 999) / 1_000)
        if let atMost, milliseconds < 0 || atMost < milliseconds { milliseconds = max(atMost, 0) }
        var descriptors = [pollfd(fd: sd.getFD(bus), events: Int16(try BusError.check(sd.getEvents(bus), "sd_bus_get_events")), revents: 0),
                           pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
            + also.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        if poll(&descriptors, nfds_t(descriptors.count), milliseconds) < 0 && errno != EINTR {
            throw BusError(code: -errno, operation: "poll")
        }
        wake.reset()
    }

    /// A closure sd-bus calls with a message, boxed to cross its `void *userdata`.
    private final class Handler {
        let body: (BusMessage, UnsafeMutablePointer<sd_bus_error>?) -> Int32
        let sd: SDBus
        init(_ sd: SDBus, _ body: @escaping (BusMessage, UnsafeMutablePointer<sd_bus_error>?) -> Int32) {
            self.sd = sd
            self.body = body
        }
    }
}

@available(*, unavailable)
extension SessionBus: Sendable {}
