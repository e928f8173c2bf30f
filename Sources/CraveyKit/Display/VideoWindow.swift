internal import CSDL2
import Foundation

/// What happened at a video's window.
enum WindowInput: Equatable {
    /// A key was pressed in it.
    case key(Key)
    /// A double click in it (full screen on or off).
    case doubleClick
    /// The person closed it.
    case close
    /// The display's connection was lost (the window killed, the X server gone): nothing of the
    /// window can be shown or read any more.
    case lost
    /// It was uncovered or resized: the picture must be drawn again.
    case redraw
}

/// An owned SDL window showing a video's pictures: the `SDL_Window`, its `SDL_Renderer` and one
/// streaming `SDL_Texture` of the pictures' size, freed in that order, then SDL's video subsystem.
///
/// Planar YUV 4:2:0 pictures are uploaded as they are (`SDL_UpdateYUVTexture`); the renderer
/// scales them to the window, keeping their shape, and turns them by the video's rotation. SDL
/// wants a window used from the thread that made it: everything here runs there, except
/// ``wake()``.
final class VideoWindow {
    private let video: VideoSubsystem
    private var sdl: LibSDL { video.sdl }
    private let window: LibSDL.Window
    private let renderer: LibSDL.Renderer
    private var texture: LibSDL.Texture?
    private var textureSize: (width: Int32, height: Int32) = (0, 0)
    /// False until the first picture is uploaded: until then the window is black.
    private var showing = false
    /// The pictures' size as seen (turned, pixels square), whose shape the window keeps.
    private var shape = (width: 1, height: 1)
    private var rotation = 0

    /// Makes a window titled `title`, resizable, hidden until ``reveal(for:)`` gives it the
    /// pictures' size: the renderer is made meanwhile, while the decoder opens the file. The corresponding C functions are `SDL_CreateWindow` and
    /// `SDL_CreateRenderer`.
    init(on video: VideoSubsystem, title: String) throws(SDLError) {
        self.video = video
        let sdl = video.sdl
        let position = cravey_sdl_windowpos_centered()
        guard let window = sdl.createWindow(title, position, position, 640, 360,
                                            SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_HIDDEN.rawValue) else {
            throw sdl.error("SDL_CreateWindow")
        }
        // As ffplay: accelerated and in step with the screen's refresh where there is one, else whatever works.
        guard let renderer = sdl.createRenderer(window, -1, SDL_RENDERER_ACCELERATED.rawValue | SDL_RENDERER_PRESENTVSYNC.rawValue)
                ?? sdl.createRenderer(window, -1, 0) else {
            let error = sdl.error("SDL_CreateRenderer")
            sdl.destroyWindow(window)
            throw error
        }
        self.window = window
        self.renderer = renderer
        video.watchConnection(of: window)
    }

    /// Shows the window for pictures of `format`, centred, as big as they are seen (turned, or
    /// within the screen's usable area, their shape kept, if that is smaller), with a texture of
    /// their size. The corresponding C functions are `SDL_SetWindowSize`, `SDL_CreateTexture` and
    /// `SDL_ShowWindow`.
    func reveal(for format: VideoFormat) throws(SDLError) {
        shape = format.displaySize
        rotation = format.rotation
        var bounds = SDL_Rect()
        var scale = 1.0
        if sdl.getDisplayUsableBounds(0, &bounds) == 0, bounds.w > 0, bounds.h > 0 {
            scale = min(1, Double(bounds.w) / Double(shape.width), Double(bounds.h) / Double(shape.height))
        }
        try makeTexture(width: Int32(format.width), height: Int32(format.height))
        sdl.setWindowSize(window, Int32(Double(shape.width) * scale), Int32(Double(shape.height) * scale))
        let centred = cravey_sdl_windowpos_centered()
        sdl.setWindowPosition(window, centred, centred)
        sdl.showWindow(window)
    }

    /// Destroys the texture, the renderer and the window; nothing once the display's connection
    /// is lost: SDL would wait in Xlib for the window's events (`XIfEvent`) on a connection that
    /// never delivers one, spinning for good. They are left to the process's end then.
    deinit {
        if video.x11?.isLost == true { return }
        if let texture { sdl.destroyTexture(texture) }
        sdl.destroyRenderer(renderer)
        sdl.destroyWindow(window)
    }

    /// Shows a planar YUV 4:2:0 picture: uploads its planes as they are, then draws it. The
    /// corresponding C functions are `SDL_CreateTexture`, `SDL_UpdateYUVTexture` and `SDL_RenderPresent`.
    func show(_ picture: Frame) throws(SDLError) {
        let planes = picture.planes
        guard planes.count == 3 else { throw SDLError(operation: "SDL_UpdateYUVTexture", message: "not a planar YUV picture") }
        if textureSize != (picture.width, picture.height) { try makeTexture(width: picture.width, height: picture.height) }
        let matrix = picture.colorMatrix
        sdl.setYUVConversionMode(matrix.fullRange ? SDL_YUV_CONVERSION_JPEG : matrix.bt709 ? SDL_YUV_CONVERSION_BT709 : SDL_YUV_CONVERSION_BT601)
        guard sdl.updateYUVTexture(texture, nil, planes[0].bytes, planes[0].lineSize, planes[1].bytes, planes[1].lineSize,
                                   planes[2].bytes, planes[2].lineSize) == 0 else { throw sdl.error("SDL_UpdateYUVTexture") }
        showing = true
        redraw()
    }

    /// Makes the texture pictures are uploaded to, planar YUV 4:2:0 (`IYUV`) of their size.
    private func makeTexture(width: Int32, height: Int32) throws(SDLError) {
        if let texture { sdl.destroyTexture(texture) }
        texture = sdl.createTexture(renderer, SDL_PIXELFORMAT_IYUV.rawValue, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                    max(width, 1), max(height, 1))
        guard texture != nil else { throw sdl.error("SDL_CreateTexture") }
        textureSize = (width, height)
    }

    /// Draws the last picture again, fitted to the window's size and centred on black. The
    /// corresponding C functions are `SDL_RenderCopyEx` and `SDL_RenderPresent`.
    func redraw() {
        var width: Int32 = 0, height: Int32 = 0
        _ = sdl.getRendererOutputSize(renderer, &width, &height)
        _ = sdl.setRenderDrawColor(renderer, 0, 0, 0, 255)
        _ = sdl.renderClear(renderer)
        if showing {
            let scale = min(Double(width) / Double(shape.width), Double(height) / Double(shape.height))
            let fitted = (width: Double(shape.width) * scale, height: Double(shape.height) * scale)
            // The rectangle before turning: turned a quarter, the picture's width runs down the window.
            let (w, h) = rotation % 180 == 0 ? fitted : (fitted.height, fitted.width)
            var target = SDL_Rect(x: Int32(((Double(width) - w) / 2).rounded()), y: Int32(((Double(height) - h) / 2).rounded()),
                                  w: Int32(w.rounded()), h: Int32(h.rounded()))
            _ = sdl.renderCopyEx(renderer, texture, nil, &target, Double(rotation), nil, SDL_FLIP_NONE)
        }
        sdl.renderPresent(renderer)
    }

    /// Turns full screen (the desktop's size) on or off. The corresponding C function is `SDL_SetWindowFullscreen`.
    func toggleFullScreen() {
        let fullScreen = SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue
        _ = sdl.setWindowFullscreen(window, sdl.getWindowFlags(window) & fullScreen == fullScreen ? 0 : fullScreen)
    }

    /// What happened at the window, waiting up to `seconds` (nil: until something does; 0: not at
    /// all) for a first event, then taking every other one there is. A ``wake()`` ends the wait.
    ///
    /// On X11 it waits in `poll` on the display's connection and the wake pipe, never inside SDL
    /// (see ``X11Connection``), and says `.lost` once the connection is. The corresponding C
    /// functions are `poll`, `SDL_PollEvent` and (on Wayland) `SDL_WaitEventTimeout`.
    func inputs(waiting seconds: Double?) -> [WindowInput] {
        var event = SDL_Event()
        let timeout = seconds.map { Int32(min(max(($0 * 1000).rounded(.up), 0), 60_000)) } ?? -1
        var inputs: [WindowInput] = []
        if let x11 = video.x11 {
            guard !x11.isLost else { return [.lost] }
            if timeout != 0, !x11.pendingEvents {
                var descriptors = [pollfd(fd: x11.descriptor, events: Int16(POLLIN), revents: 0),
                                   pollfd(fd: Self.wakePipe.output, events: Int16(POLLIN), revents: 0)]
                while poll(&descriptors, 2, timeout) < 0, errno == EINTR {}
            }
            Self.drainWakePipe()
        } else {
            guard timeout == 0 || sdl.waitEventTimeout(&event, timeout) == 1 else { return [] }
            if timeout != 0, let input = Self.input(event) { inputs.append(input) }
        }
        while sdl.pollEvent(&event) == 1 {
            if let input = Self.input(event) { inputs.append(input) }
        }
        if video.x11?.isLost == true { inputs.append(.lost) }
        return inputs
    }

    /// Ends a wait in ``inputs(waiting:)``, from any thread, while a window is open: a byte in
    /// the wake pipe (X11) and an event in SDL's queue (Wayland). The corresponding C functions
    /// are `write` and `SDL_PushEvent`.
    static func wake() {
        // Without SDL there is no window, so nobody to wake.
        guard let sdl = try? LibSDL.shared.get() else { return }
        var byte: UInt8 = 1
        while write(wakePipe.input, &byte, 1) < 0, errno == EINTR {}
        var event = SDL_Event()
        event.type = SDL_USEREVENT.rawValue
        _ = sdl.pushEvent(&event)
    }

    /// The pipe ``wake()`` writes to, which an X11 window's wait polls beside the display's
    /// connection; both ends non-blocking (a full pipe already wakes), kept for the process.
    private static let wakePipe: (output: Int32, input: Int32) = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return (-1, -1) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        return (ends[0], ends[1])
    }()

    /// Empties the wake pipe. The corresponding C function is `read`.
    private static func drainWakePipe() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(wakePipe.output, $0.baseAddress, $0.count) }) > 0 {}
    }

    private static func input(_ event: SDL_Event) -> WindowInput? {
        switch SDL_EventType(event.type) {
        case SDL_QUIT:
            return .close
        case SDL_WINDOWEVENT:
            switch SDL_WindowEventID(UInt32(event.window.event)) {
            case SDL_WINDOWEVENT_CLOSE: return .close
            case SDL_WINDOWEVENT_EXPOSED, SDL_WINDOWEVENT_SIZE_CHANGED: return .redraw
            default: return nil
            }
        case SDL_MOUSEBUTTONDOWN:
            return event.button.button == SDL_BUTTON_LEFT && event.button.clicks == 2 ? .doubleClick : nil
        case SDL_KEYDOWN:
            return key(event.key.keysym.sym).map { .key($0) }
        default:
            return nil
        }
    }

    private static func key(_ code: SDL_Keycode) -> Key? {
        let key = UInt32(bitPattern: code)
        switch key {
        case SDLK_LEFT.rawValue: return .left
        case SDLK_RIGHT.rawValue: return .right
        case SDLK_HOME.rawValue: return .home
        case SDLK_END.rawValue: return .end
        case SDLK_ESCAPE.rawValue: return .escape
        case SDLK_BACKSPACE.rawValue: return .backspace
        // The keypad's digits are the digits' keys.
        case SDLK_KP_0.rawValue: return Self.key(SDL_Keycode(UInt8(ascii: "0")))
        case SDLK_KP_1.rawValue...SDLK_KP_9.rawValue: return Self.key(SDL_Keycode(UInt8(ascii: "1") + UInt8(key - SDLK_KP_1.rawValue)))
        case 32..<127: return .character(Character(UnicodeScalar(UInt8(key))))
        default: return nil
        }
    }
}

@available(*, unavailable)
extension VideoWindow: Sendable {}
