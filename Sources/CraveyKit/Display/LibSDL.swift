internal import CSDL2
import Foundation

/// An error returned by an SDL call: the call that failed and SDL's message for it.
struct SDLError: Error, Sendable, CustomStringConvertible {
    /// The call that failed, for example `SDL_CreateWindow`.
    let operation: String
    /// SDL's text (`SDL_GetError`), or `dlerror`'s when SDL could not be loaded.
    let message: String

    var description: String { "\(operation): \(message)" }
}

/// The SDL2 functions the video window uses, looked up in `libSDL2-2.0.so.0` once per process.
///
/// SDL2 is not linked: with the X11 and Wayland libraries it pulls in, it would load into every
/// `cravey-media` process, the audio player's included. It is loaded with `dlopen` when a video
/// plays with a display; the function types are those of `<SDL2/SDL.h>`.
// @unchecked Sendable: immutable after loading, addresses of C functions.
struct LibSDL: @unchecked Sendable {
    typealias Window = OpaquePointer
    typealias Renderer = OpaquePointer
    typealias Texture = OpaquePointer

    static let shared = Result { () throws(SDLError) in try LibSDL() }

    let setHint: @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> SDL_bool
    let initSubSystem: @convention(c) (UInt32) -> Int32
    let quitSubSystem: @convention(c) (UInt32) -> Void
    let getError: @convention(c) () -> UnsafePointer<CChar>?
    let createWindow: @convention(c) (UnsafePointer<CChar>?, Int32, Int32, Int32, Int32, UInt32) -> Window?
    let destroyWindow: @convention(c) (Window?) -> Void
    let setWindowSize: @convention(c) (Window?, Int32, Int32) -> Void
    let setWindowPosition: @convention(c) (Window?, Int32, Int32) -> Void
    let showWindow: @convention(c) (Window?) -> Void
    let getWindowFlags: @convention(c) (Window?) -> UInt32
    let setWindowFullscreen: @convention(c) (Window?, UInt32) -> Int32
    let getDisplayUsableBounds: @convention(c) (Int32, UnsafeMutablePointer<SDL_Rect>?) -> Int32
    let createRenderer: @convention(c) (Window?, Int32, UInt32) -> Renderer?
    let destroyRenderer: @convention(c) (Renderer?) -> Void
    let getRendererOutputSize: @convention(c) (Renderer?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> Int32
    let setRenderDrawColor: @convention(c) (Renderer?, UInt8, UInt8, UInt8, UInt8) -> Int32
    let renderClear: @convention(c) (Renderer?) -> Int32
    let renderCopyEx: @convention(c) (Renderer?, Texture?, UnsafePointer<SDL_Rect>?, UnsafePointer<SDL_Rect>?, Double,
                                      UnsafePointer<SDL_Point>?, SDL_RendererFlip) -> Int32
    let renderPresent: @convention(c) (Renderer?) -> Void
    let createTexture: @convention(c) (Renderer?, UInt32, Int32, Int32, Int32) -> Texture?
    let destroyTexture: @convention(c) (Texture?) -> Void
    let updateYUVTexture: @convention(c) (Texture?, UnsafePointer<SDL_Rect>?, UnsafePointer<UInt8>?, Int32,
                                          UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32) -> Int32
    let setYUVConversionMode: @convention(c) (SDL_YUV_CONVERSION_MODE) -> Void
    let pollEvent: @convention(c) (UnsafeMutablePointer<SDL_Event>?) -> Int32
    let waitEventTimeout: @convention(c) (UnsafeMutablePointer<SDL_Event>?, Int32) -> Int32
    let pushEvent: @convention(c) (UnsafeMutablePointer<SDL_Event>?) -> Int32
    let getWindowWMInfo: @convention(c) (Window?, UnsafeMutablePointer<cravey_sdl_wminfo>?) -> SDL_bool

    /// The corresponding C functions are `dlopen` and `dlsym`; the library stays loaded.
    private init() throws(SDLError) {
        let library = try LoadedLibrary("libSDL2-2.0.so.0") { SDLError(operation: "loading SDL2", message: $0) }
        setHint = try library.symbol("SDL_SetHint")
        initSubSystem = try library.symbol("SDL_InitSubSystem")
        quitSubSystem = try library.symbol("SDL_QuitSubSystem")
        getError = try library.symbol("SDL_GetError")
        createWindow = try library.symbol("SDL_CreateWindow")
        destroyWindow = try library.symbol("SDL_DestroyWindow")
        setWindowSize = try library.symbol("SDL_SetWindowSize")
        setWindowPosition = try library.symbol("SDL_SetWindowPosition")
        showWindow = try library.symbol("SDL_ShowWindow")
        getWindowFlags = try library.symbol("SDL_GetWindowFlags")
        setWindowFullscreen = try library.symbol("SDL_SetWindowFullscreen")
        getDisplayUsableBounds = try library.symbol("SDL_GetDisplayUsableBounds")
        createRenderer = try library.symbol("SDL_CreateRenderer")
        destroyRenderer = try library.symbol("SDL_DestroyRenderer")
        getRendererOutputSize = try library.symbol("SDL_GetRendererOutputSize")
        setRenderDrawColor = try library.symbol("SDL_SetRenderDrawColor")
        renderClear = try library.symbol("SDL_RenderClear")
        renderCopyEx = try library.symbol("SDL_RenderCopyEx")
        renderPresent = try library.symbol("SDL_RenderPresent")
        createTexture = try library.symbol("SDL_CreateTexture")
        destroyTexture = try library.symbol("SDL_DestroyTexture")
        updateYUVTexture = try library.symbol("SDL_UpdateYUVTexture")
        setYUVConversionMode = try library.symbol("SDL_SetYUVConversionMode")
        pollEvent = try library.symbol("SDL_PollEvent")
        waitEventTimeout = try library.symbol("SDL_WaitEventTimeout")
        pushEvent = try library.symbol("SDL_PushEvent")
        getWindowWMInfo = try library.symbol("SDL_GetWindowWMInfo")
    }

    /// The error of the SDL call `operation` that just failed. The corresponding C function is `SDL_GetError`.
    func error(_ operation: String) -> SDLError {
        SDLError(operation: operation, message: getError().map { String(cString: $0) } ?? "unknown error")
    }
}

/// SDL's video subsystem, held while a window is open: SDL's connection to the display.
final class VideoSubsystem {
    let sdl: LibSDL
    /// The X display's connection, watched once a window shows it is X11 (``watchConnection(of:)``).
    private(set) var x11: X11Connection?

    /// Loads SDL2 and connects to the display the environment names (`DISPLAY`, `WAYLAND_DISPLAY`),
    /// and to no other (no console, no off-screen driver). The corresponding C function is
    /// `SDL_InitSubSystem`.
    init() throws(SDLError) {
        let environment = ProcessInfo.processInfo.environment
        let drivers = [("x11", "DISPLAY"), ("wayland", "WAYLAND_DISPLAY")].filter { !(environment[$0.1] ?? "").isEmpty }.map(\.0)
        guard !drivers.isEmpty else { throw SDLError(operation: "SDL_InitSubSystem", message: "neither DISPLAY nor WAYLAND_DISPLAY is set") }
        // cravey opens no network connection: an X display over TCP (ssh -X) is not reached.
        if let refusal = LocalServers.displayRefusal(environment) { throw SDLError(operation: "DISPLAY", message: refusal.message) }
        sdl = try LibSDL.shared.get()
        _ = sdl.setHint("SDL_VIDEODRIVER", drivers.joined(separator: ","))
        // SIGINT and SIGTERM are cravey's: they stop and count the play.
        _ = sdl.setHint("SDL_NO_SIGNAL_HANDLERS", "1")
        // A player in a window leaves the desktop's compositor on, as ffplay does.
        _ = sdl.setHint("SDL_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR", "0")
        guard sdl.initSubSystem(SDL_INIT_VIDEO) != 0 else { return }
        let error = sdl.error("SDL_InitSubSystem")
        // SDL 2.26 finds no display through XRandR on an X server without outputs (Xvfb); it
        // does without it. Set in the environment, SDL_VIDEO_X11_XRANDR wins over this hint.
        guard error.message.contains("No available displays") else { throw error }
        _ = sdl.setHint("SDL_VIDEO_X11_XRANDR", "0")
        guard sdl.initSubSystem(SDL_INIT_VIDEO) == 0 else { throw sdl.error("SDL_InitSubSystem") }
    }

    /// Watches the connection to the X display `window` is on (see ``X11Connection``), once;
    /// nothing on Wayland. The corresponding C function is `SDL_GetWindowWMInfo`.
    func watchConnection(of window: LibSDL.Window) {
        guard x11 == nil else { return }
        var info = cravey_sdl_wminfo()
        cravey_sdl_wminfo_prepare(&info)
        guard sdl.getWindowWMInfo(window, &info) == SDL_TRUE, info.subsystem == cravey_sdl_syswm_x11(),
              let display = info.info.x11.display else { return }
        x11 = X11Connection(display: OpaquePointer(display))
    }

    /// Quits SDL's video subsystem, unless the X connection was lost: SDL would then close its
    /// second connection, and Xlib end the process for it (``X11Connection``). The subsystem is
    /// left as it is for the rest of the process. The corresponding C function is `SDL_QuitSubSystem`.
    deinit {
        if let x11, x11.isLost {
            // Its exit handler points at it while the display lives, which is now for good.
            _ = Unmanaged.passRetained(x11)
            return
        }
        sdl.quitSubSystem(SDL_INIT_VIDEO)
    }
}

@available(*, unavailable)
extension VideoSubsystem: Sendable {}
