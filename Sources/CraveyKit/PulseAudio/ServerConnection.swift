internal import CPulseAudio

/// An owned connection to a PulseAudio server for introspection: its sources and defaults.
///
/// It runs its own `pa_mainloop` on the calling thread, so every call blocks: use it off the
/// cooperative thread pool.
final class ServerConnection {
    private let mainloop: OpaquePointer
    private let context: OpaquePointer

    /// Connects to the server on this computer (``LocalServers/soundServer(_:)``).
    /// The corresponding C functions are `pa_context_new` and `pa_context_connect`.
    init(applicationName: String = "cravey") throws(PulseAudioError) {
        let server = try PulseAudioError.server()
        guard let mainloop = pa_mainloop_new() else {
            throw PulseAudioError(code: Int32(PA_ERR_INTERNAL.rawValue), operation: "pa_mainloop_new")
        }
        guard let context = pa_context_new(pa_mainloop_get_api(mainloop), applicationName) else {
            pa_mainloop_free(mainloop)
            throw PulseAudioError(code: Int32(PA_ERR_INTERNAL.rawValue), operation: "pa_context_new")
        }
        self.mainloop = mainloop
        self.context = context
        if pa_context_connect(context, server, PulseAudioError.connectFlags(for: server), nil) < 0 {
            throw PulseAudioError(code: pa_context_errno(context), operation: "pa_context_connect")
        }
        while true {
            switch pa_context_get_state(context) {
            case PA_CONTEXT_READY: return
            case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
                throw PulseAudioError(code: pa_context_errno(context), operation: "pa_context_connect")
            default:
                if pa_mainloop_iterate(mainloop, 1, nil) < 0 {
                    throw PulseAudioError(code: pa_context_errno(context), operation: "pa_mainloop_iterate")
                }
            }
        }
    }

    deinit {
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_mainloop_free(mainloop)
    }

    /// Which devices ``devices(_:)`` lists.
    enum DeviceKind {
        case sources, sinks
    }

    /// The names of the server's default source and sink. The corresponding C function is
    /// `pa_context_get_server_info`.
    func defaultNames() throws(PulseAudioError) -> (source: String?, sink: String?) {
        let box = Collector<(source: String?, sink: String?)>((nil, nil))
        try run(pa_context_get_server_info(context, { _, info, userdata in
            let box = Unmanaged<Collector<(source: String?, sink: String?)>>.fromOpaque(userdata!).takeUnretainedValue()
            box.value = (info?.pointee.default_source_name.map { String(cString: $0) },
                         info?.pointee.default_sink_name.map { String(cString: $0) })
        }, Unmanaged.passUnretained(box).toOpaque()))
        return box.value
    }

    /// The name of the server's default source.
    func defaultSourceName() throws(PulseAudioError) -> String? {
        try defaultNames().source
    }

    /// Every source or sink the server has, the default one marked. The corresponding C
    /// functions are `pa_context_get_source_info_list` and `pa_context_get_sink_info_list`.
    func devices(_ kind: DeviceKind) throws(PulseAudioError) -> [AudioDevice] {
        let defaults = try defaultNames()
        let box = Collector<[AudioDevice]>([])
        let userdata = Unmanaged.passUnretained(box).toOpaque()
        func add(_ userdata: UnsafeMutableRawPointer?, _ name: UnsafePointer<CChar>, _ description: UnsafePointer<CChar>?, monitor: Bool) {
            Unmanaged<Collector<[AudioDevice]>>.fromOpaque(userdata!).takeUnretainedValue().value.append(AudioDevice(
                name: String(cString: name), description: description.map { String(cString: $0) } ?? "",
                isDefault: false, isMonitor: monitor))
        }
        switch kind {
        case .sources:
            try run(pa_context_get_source_info_list(context, { _, info, end, userdata in
                guard end == 0, let info else { return }
                add(userdata, info.pointee.name, info.pointee.description, monitor: info.pointee.monitor_of_sink != UInt32.max)
            }, userdata))
        case .sinks:
            try run(pa_context_get_sink_info_list(context, { _, info, end, userdata in
                guard end == 0, let info else { return }
                add(userdata, info.pointee.name, info.pointee.description, monitor: false)
            }, userdata))
        }
        let defaultName = kind == .sources ? defaults.source : defaults.sink
        return box.value.map { device in
            var device = device
            device.isDefault = device.name == defaultName
            return device
        }
    }

    /// Iterates the main loop until an operation completes.
    private func run(_ operation: OpaquePointer?) throws(PulseAudioError) {
        guard let operation else {
            throw PulseAudioError(code: pa_context_errno(context), operation: "pa_context_get_info")
        }
        defer { pa_operation_unref(operation) }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING {
            if pa_mainloop_iterate(mainloop, 1, nil) < 0 {
                throw PulseAudioError(code: pa_context_errno(context), operation: "pa_mainloop_iterate")
            }
        }
    }
}

@available(*, unavailable)
extension ServerConnection: Sendable {}

/// Carries a callback's result out through a C `userdata` pointer.
private final class Collector<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}
