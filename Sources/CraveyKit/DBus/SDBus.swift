import Foundation
internal import CSDBus

/// The sd-bus functions cravey calls, looked up in libsystemd (loaded with `dlopen`, once, the
/// first time a session bus exists): a process that never sees a bus never loads it.
struct SDBus: Sendable {
    typealias Bus = OpaquePointer
    typealias Message = OpaquePointer
    typealias Handler = sd_bus_message_handler_t

    let openUser: @convention(c) (UnsafeMutablePointer<Bus?>?) -> Int32
    let requestName: @convention(c) (Bus?, UnsafePointer<CChar>?, UInt64) -> Int32
    let addObject: @convention(c) (Bus?, UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?, Handler?, UnsafeMutableRawPointer?) -> Int32
    let addMatch: @convention(c) (Bus?, UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?, Handler?, UnsafeMutableRawPointer?) -> Int32
    let process: @convention(c) (Bus?, UnsafeMutablePointer<Message?>?) -> Int32
    let getFD: @convention(c) (Bus?) -> Int32
    let getEvents: @convention(c) (Bus?) -> Int32
    let getTimeout: @convention(c) (Bus?, UnsafeMutablePointer<UInt64>?) -> Int32
    let flushCloseUnref: @convention(c) (Bus?) -> Bus?
    let send: @convention(c) (Bus?, Message?, UnsafeMutablePointer<UInt64>?) -> Int32
    let call: @convention(c) (Bus?, Message?, UInt64, UnsafeMutablePointer<sd_bus_error>?, UnsafeMutablePointer<Message?>?) -> Int32
    let newSignal: @convention(c) (Bus?, UnsafeMutablePointer<Message?>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    let newMethodCall: @convention(c) (Bus?, UnsafeMutablePointer<Message?>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    let newMethodReturn: @convention(c) (Message?, UnsafeMutablePointer<Message?>?) -> Int32
    let ref: @convention(c) (Message?) -> Message?
    let unref: @convention(c) (Message?) -> Message?
    let appendBasic: @convention(c) (Message?, CChar, UnsafeRawPointer?) -> Int32
    let openContainer: @convention(c) (Message?, CChar, UnsafePointer<CChar>?) -> Int32
    let closeContainer: @convention(c) (Message?) -> Int32
    let readBasic: @convention(c) (Message?, CChar, UnsafeMutableRawPointer?) -> Int32
    let peekType: @convention(c) (Message?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32
    let enterContainer: @convention(c) (Message?, CChar, UnsafePointer<CChar>?) -> Int32
    let exitContainer: @convention(c) (Message?) -> Int32
    let getInterface: @convention(c) (Message?) -> UnsafePointer<CChar>?
    let getMember: @convention(c) (Message?) -> UnsafePointer<CChar>?
    let errorSet: @convention(c) (UnsafeMutablePointer<sd_bus_error>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    let errorFree: @convention(c) (UnsafeMutablePointer<sd_bus_error>?) -> Void

    /// libsystemd's functions, or why they could not be loaded.
    static let loaded = Result { () throws(BusError) in
        try SDBus(LoadedLibrary("libsystemd.so.0") { BusError(code: -ENOENT, operation: $0) })
    }

    private init(_ library: LoadedLibrary<BusError>) throws(BusError) {
        openUser = try library.symbol("sd_bus_open_user")
        requestName = try library.symbol("sd_bus_request_name")
        addObject = try library.symbol("sd_bus_add_object")
        addMatch = try library.symbol("sd_bus_add_match")
        process = try library.symbol("sd_bus_process")
        getFD = try library.symbol("sd_bus_get_fd")
        getEvents = try library.symbol("sd_bus_get_events")
        getTimeout = try library.symbol("sd_bus_get_timeout")
        flushCloseUnref = try library.symbol("sd_bus_flush_close_unref")
        send = try library.symbol("sd_bus_send")
        call = try library.symbol("sd_bus_call")
        newSignal = try library.symbol("sd_bus_message_new_signal")
        newMethodCall = try library.symbol("sd_bus_message_new_method_call")
        newMethodReturn = try library.symbol("sd_bus_message_new_method_return")
        ref = try library.symbol("sd_bus_message_ref")
        unref = try library.symbol("sd_bus_message_unref")
        appendBasic = try library.symbol("sd_bus_message_append_basic")
        openContainer = try library.symbol("sd_bus_message_open_container")
        closeContainer = try library.symbol("sd_bus_message_close_container")
        readBasic = try library.symbol("sd_bus_message_read_basic")
        peekType = try library.symbol("sd_bus_message_peek_type")
        enterContainer = try library.symbol("sd_bus_message_enter_container")
        exitContainer = try library.symbol("sd_bus_message_exit_container")
        getInterface = try library.symbol("sd_bus_message_get_interface")
        getMember = try library.symbol("sd_bus_message_get_member")
        errorSet = try library.symbol("sd_bus_error_set")
        errorFree = try library.symbol("sd_bus_error_free")
    }
}
