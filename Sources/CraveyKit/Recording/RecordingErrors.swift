import Foundation
import SystemPackage

extension CraveyError {
    /// Explains a PulseAudio failure to a person, naming the source and the fix.
    static func soundServer(_ error: PulseAudioError, source: String?) -> CraveyError {
        soundServer(error, device: "audio source", named: source, use: "the recording from '\(source ?? "the default source")'")
    }

    /// Explains a PulseAudio failure while playing, naming the sink and the fix.
    static func soundServer(_ error: PulseAudioError, sink: String?) -> CraveyError {
        soundServer(error, device: "audio output (sink)", named: sink, use: "playback on '\(sink ?? "the default sink")'")
    }

    private static func soundServer(_ error: PulseAudioError, device: String, named name: String?, use: String) -> CraveyError {
        // Spelled out: with swift-system imported, `.connectionRefused` would match as
        // `Errno.connectionRefused ~= error` (its `~=(Errno, Error)`) and never be true.
        switch error {
        case PulseAudioError.invalidServer:
            let chosen = LocalServers.soundServer()
            if case .failure(let refusal) = chosen { return refusal }
            let server = (try? chosen.get())?.map { " \($0)" } ?? ""
            return CraveyError(.unavailable, "The sound server\(server) is not one to connect to (\(error.message)).",
                               advice: .startSoundServer, underlying: error)
        case PulseAudioError.connectionRefused, PulseAudioError.timeout, PulseAudioError.accessDenied:
            let server = (try? LocalServers.soundServer().get())?.map { " at \($0)" } ?? ""
            return CraveyError(.unavailable, "No sound server is reachable\(server) (\(error.message)).", advice: .startSoundServer,
                               underlying: error)
        case PulseAudioError.noSuchEntity:
            return CraveyError(.unavailable, "There is no \(device) named '\(name ?? "default")'.", advice: .listDevices, underlying: error)
        case PulseAudioError.connectionTerminated:
            return CraveyError(.unavailable, "The sound server went away (\(error.message)).", advice: .restartSoundServer, underlying: error)
        default:
            return CraveyError(.unavailable, "The sound server refused \(use): \(error.description).", underlying: error)
        }
    }

    /// Explains a failure to write a media file: `.cannotWrite` when the disk is full or the
    /// folder refuses it (an `Errno`, or an FFmpeg error carrying `AVERROR(errno)`), `.other` otherwise.
    static func writing(_ error: any Error, to url: URL) -> CraveyError {
        if let error = error as? CraveyError { return error }
        let code = (error as? Errno)?.rawValue ?? (error as? FFmpegError)?.posixErrno
        if let code, [ENOSPC, EDQUOT, EACCES, EPERM, EROFS, EFBIG, EIO, EISDIR, EEXIST].contains(code) {
            return FileStorageManager.writeError(code, url, doing: "write")
        }
        return CraveyError(.other, "Cannot write \(url.path): \(error).", underlying: error)
    }
}

extension CraveyError {
    /// Explains a camera that cannot be opened or stopped delivering, naming it and offering the
    /// audio recorder instead.
    static func camera(_ error: FFmpegError, _ camera: CameraSource) -> CraveyError {
        let reason = error.posixErrno.map { String(cString: strerror($0)) } ?? error.message
        switch camera {
        case .test:
            return CraveyError(.unavailable, "The test camera cannot run (\(error.description)).", advice: .installCameraLibraries, underlying: error)
        case .device(let path):
            return CraveyError(.unavailable, "Cannot use the camera \(path): \(reason).", advice: .checkCamera, underlying: error)
        }
    }
}
