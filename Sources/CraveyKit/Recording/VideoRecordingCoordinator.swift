import Foundation
import Synchronization

/// The video recorder: the ``Recorder``'s configuration with two capture stages, the camera
/// (libavdevice, on its own thread) and the microphone (PulseAudio, on another), feeding one
/// queue, and an encoder stage that writes H.264 and AAC into one `.mp4`.
///
/// Both inputs are stamped on one clock (``RecordingClock``): the audio is timed by its samples
/// from its first sample's time, which is the video's frame 0, and the video is written at a
/// constant rate (``ConstantFrameRate``), pictures dropped or repeated to hold it, and ends with
/// the audio. A pause leaves out of the video the stretch of the clock the audio left out.
struct VideoRecordingCoordinator: RecordingCoordinator {
    let options: RecordingOptions
    /// The camera (``RecordingOptions/camera``).
    let camera: CameraSource
    /// Pictures pushed by the camera and not yet taken by the encoder.
    private let inFlight = InFlight()

    /// Pictures queued between the camera and the encoder at most; the camera drops what comes
    /// beyond (a camera cannot wait), so a slow encoder costs frames, not memory.
    static let maxPicturesInFlight = 6

    init(options: RecordingOptions, camera: CameraSource) {
        self.options = options
        self.camera = camera
    }

    var type: RecordingType { .video }

    func producers(control: RecordingControl) -> [(thread: String, body: @Sendable (Recorder.Stages.Producer) throws -> Void)] {
        [("cravey.camera", { stage in try captureVideo(stage, origin: control.clock.origin) }),
         ("cravey.capture", { [options] stage in try MicrophoneCapture.run(stage, options: options, control: control) })]
    }

    /// Pictures pushed by the camera and not yet taken by the encoder.
    private final class InFlight: Sendable {
        let count = Atomic(0)
    }

    /// The camera stage: opens the camera, then stamps every picture on the recording's clock and
    /// queues it; about once a second it reports the rate the camera achieves.
    private func captureVideo(_ stage: Recorder.Stages.Producer, origin: ContinuousClock.Instant) throws {
        // A device is asked what it offers first: a missing one or one that is no camera is
        // named as `cravey devices` would, and the capture mode comes from its own list.
        var device: CameraDevice?
        if case .device(let pathOrName) = camera { device = try Cameras.resolve(pathOrName) }
        let input: CameraInput
        do {
            input = try CameraInput(camera, device: device, width: options.width, height: options.height,
                                     frameRate: options.frameRate)
        } catch {
            throw CraveyError.camera(error, device.map { .device($0.path) } ?? camera)
        }
        try stage.ready()
        var summary = CameraSummary()
        var window = (start: ContinuousClock.now, pictures: 0)
        // Read on through a pause: the encoder leaves the paused stretch out (``Captured/audioPaused(time:)``).
        while try stage.proceed(throughPause: true) {
            let picture: Frame?
            do {
                picture = try input.next()
            } catch {
                summary.interruption = CraveyError.camera(error, camera).message
                break
            }
            guard let picture else {
                summary.interruption = "The camera \(camera) stopped delivering pictures."
                break
            }
            let now = ContinuousClock.now
            summary.captured += 1
            if inFlight.count.load(ordering: .relaxed) >= Self.maxPicturesInFlight {
                summary.dropped += 1
            } else {
                inFlight.count.add(1, ordering: .relaxed)
                try stage.push(.picture(CapturedPicture(frame: picture), time: (now - origin) / .seconds(1)))
            }
            window.pictures += 1
            let elapsed = (now - window.start) / .seconds(1)
            if elapsed >= 1 {
                stage.emit(.frameRate(Double(window.pictures) / elapsed))
                window = (now, 0)
            }
        }
        if let interruption = summary.interruption { stage.emit(.interrupted(interruption)) }
        try stage.push(.videoEnd(summary))
    }

    /// The encoder stage's loop: holds the video to a constant rate against the audio.
    func encode(_ stage: Recorder.Stages.Consumer, into writer: RecordingFileWriter,
                result: inout RecordingResult, written samples: inout Int) throws {
        var camera = CameraSummary()
        // A second of pictures may wait for late audio: past that they go out ahead of it, and a
        // recording that ends meanwhile ends with a frame or more past its sound (8 waiting,
        // 0.32 s at 25 fps, gave 51 frames to 2.0 s of sound on a loaded clean-clone run: ci55).
        var video = ConstantFrameRate<CapturedPicture>(frameRate: options.frameRate, maxWaiting: max(options.frameRate, 8))
        let rate = Double(options.sampleRate)
        func write(_ frames: [(picture: CapturedPicture, frame: Int64)]) throws {
            for (picture, frame) in frames { try writer.append(picture.frame, frame: frame) }
        }
        try stage.ready()
        while let item = try stage.pop() {
            switch item {
            case .samples(let block):
                if video.origin == nil { video.origin = block.time }
                try writer.append(block.samples)
                samples += block.samples.count / options.channels
                try write(video.release(upTo: Double(samples) / rate))
            case .picture(let picture, let time):
                inFlight.count.subtract(1, ordering: .relaxed)
                video.add(picture, at: time)
                try write(video.release(upTo: Double(samples) / rate))
            case .audioPaused(let time):
                video.cut(from: time)
            case .audioResumed(let time):
                video.endCut(at: time)
                try write(video.release(upTo: Double(samples) / rate))
            case .audioEnd(let end):
                result.apply(end)
            case .videoEnd(let end):
                camera = end
            }
        }
        try write(video.finish(at: Double(samples) / rate))
        result.frameCount = Int(video.next)
        result.capturedFrames = camera.captured
        result.droppedFrames = camera.dropped + video.dropped
        result.duplicatedFrames = video.duplicated
        result.interruption = result.interruption ?? camera.interruption
        stage.emit(.videoFrames(written: result.frameCount, dropped: result.droppedFrames, repeated: result.duplicatedFrames))
    }
}

/// A picture handed from the camera's thread to the encoder's.
// @unchecked Sendable: ownership moves with it; the camera thread never touches the frame
// after pushing it, and from then on only the encoder thread does.
struct CapturedPicture: @unchecked Sendable {
    let frame: Frame
}

/// What the camera stage reports once it has ended.
struct CameraSummary: Sendable {
    var captured = 0
    /// Pictures the camera delivered while the encoder had too many waiting.
    var dropped = 0
    var interruption: String?
}
