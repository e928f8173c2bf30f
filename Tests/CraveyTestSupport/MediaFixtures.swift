import Foundation

/// One of the committed files in the package's `Media/` folder (made by `scripts/media`; what
/// each is for is in `Media/README.md`), with what the library should make of it.
public struct MediaFixture: Sendable, CustomStringConvertible {
    /// What importing the file must give.
    public enum Expectation: Sendable, Equatable {
        /// An audio clip of about this many seconds.
        case audio(seconds: Double)
        /// A video clip of about this many seconds.
        case video(seconds: Double)
        /// Refused as undecodable media (exit 65), nothing stored.
        case malformed
    }

    /// The file's name in `Media/`.
    public let name: String
    public let expectation: Expectation

    public var description: String { name }

    /// Where the file is.
    public var url: URL { Self.folder.appendingPathComponent(name) }

    /// How long a clip made from the file lasts; nil for a malformed file.
    public var seconds: Double? {
        switch expectation {
        case .audio(let seconds), .video(let seconds): seconds
        case .malformed: nil
        }
    }

    public var isMalformed: Bool { expectation == .malformed }

    /// The package's `Media/` folder.
    public static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Media")

    /// Every fixture in `Media/`; a test checks that the folder holds exactly these.
    public static let all: [MediaFixture] = [
        MediaFixture(name: "tone.m4a", expectation: .audio(seconds: 2.5)),
        MediaFixture(name: "tone.mp3", expectation: .audio(seconds: 2.5)),
        MediaFixture(name: "tone.ogg", expectation: .audio(seconds: 2.5)),
        MediaFixture(name: "tone.opus", expectation: .audio(seconds: 2.5)),
        MediaFixture(name: "tone.flac", expectation: .audio(seconds: 2.5)),
        MediaFixture(name: "tone.wav", expectation: .audio(seconds: 2.5)),
        MediaFixture(name: "cover-art.mp3", expectation: .audio(seconds: 2.5)),
        MediaFixture(name: "video.mp4", expectation: .video(seconds: 2)),
        MediaFixture(name: "phone-rotated.mp4", expectation: .video(seconds: 2)),
        MediaFixture(name: "vp8.webm", expectation: .video(seconds: 2)),
        MediaFixture(name: "vp9.webm", expectation: .video(seconds: 2)),
        MediaFixture(name: "theora.ogv", expectation: .video(seconds: 2)),
        MediaFixture(name: "mpeg4.avi", expectation: .video(seconds: 2)),
        MediaFixture(name: "video-only.mp4", expectation: .video(seconds: 2)),
        MediaFixture(name: "elementary.mpg", expectation: .video(seconds: 0.8)),
        MediaFixture(name: "audio-timestamps-go-back.mkv", expectation: .video(seconds: 3.6)),
        MediaFixture(name: "malformed-empty.m4a", expectation: .malformed),
        MediaFixture(name: "malformed-random.mp3", expectation: .malformed),
        MediaFixture(name: "malformed-truncated-10.mp4", expectation: .malformed),
        MediaFixture(name: "malformed-truncated-90.mp4", expectation: .malformed),
    ]

    /// The fixtures that import (and play).
    public static var playable: [MediaFixture] { all.filter { !$0.isMalformed } }

    /// The fixtures that are refused.
    public static var malformed: [MediaFixture] { all.filter(\.isMalformed) }

    /// The fixture called `name`; a name not in ``all`` stops the test run.
    public static func named(_ name: String) -> MediaFixture {
        guard let fixture = all.first(where: { $0.name == name }) else {
            preconditionFailure("no fixture \(name) in Media/ (scripts/media makes them)")
        }
        return fixture
    }
}
