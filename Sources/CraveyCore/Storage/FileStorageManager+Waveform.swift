import Foundation

extension FileStorageManager {
    /// The ending of a clip's waveform file (``waveformPath(for:type:)``).
    static let waveformSuffix = ".peaks.dat"
    /// The largest waveform file read: 670 hours of sound at 100 peaks a second.
    private static let largestWaveform = 1 << 30

    /// Where a clip keeps its waveform: `Recordings/<type>_<uuid>.peaks.dat`, beside its media,
    /// in audiowaveform's binary format (``Waveform/audiowaveformData()``), so its tools read it
    /// as it is.
    ///
    /// Like a video's thumbnail, it is written, durably, before the clip's row is committed,
    /// deleted with the clip, and made again from the clip's media when it is missing or damaged.
    package static func waveformPath(for id: UUID, type: RecordingType) -> String {
        "\(recordingsFolder)/\(type.rawValue)_\(id.uuidString.lowercased())\(waveformSuffix)"
    }

    /// Writes clip `id`'s waveform in one step, durably (``writeAtomically(_:to:doing:syncing:)``),
    /// in place of any there, under the writers' lock: a repair never takes its temporary file
    /// for one a crash left.
    package func storeWaveform(_ waveform: Waveform, for id: UUID, type: RecordingType) throws(CraveyError) {
        try writeLocked(waveform.audiowaveformData(), to: Self.waveformPath(for: id, type: type), doing: "write the waveform")
    }

    /// Stores the waveform of a clip saved before it had one, under the writers' lock and only
    /// while its row is there, so a clip deleted meanwhile never gets a file back. Throws
    /// `.notFound` when the row is gone, `.cannotWrite` when the file cannot be written (a
    /// read-only library), `.newerLibrary` for a library a newer cravey wrote.
    package func keepWaveform(_ waveform: Waveform, of recording: Recording) throws {
        try exclusively {
            guard try repository.fetch(id: recording.id) != nil else {
                throw CraveyError(.notFound, "\"\(recording.title)\" is no longer in the library.")
            }
            try storeWaveform(waveform, for: recording.id, type: recording.type)
        }
    }

    /// Clip `id`'s stored waveform; nil when there is none, or none that reads as one (a file
    /// cut short, a link, which is never followed): it is made again from the media then.
    package func storedWaveform(of id: UUID, type: RecordingType) -> Waveform? {
        contents(of: url(of: Self.waveformPath(for: id, type: type)), atMost: Self.largestWaveform)
            .flatMap(Waveform.init(audiowaveformData:))
    }

    /// Whether clip `id` has a waveform file that reads as one, judged from its header and its
    /// size without reading it all (what `doctor` checks of every clip).
    package func holdsWaveform(of id: UUID, type: RecordingType) -> Bool {
        guard let descriptor = try? openForReading(url(of: Self.waveformPath(for: id, type: type))) else { return false }
        defer { try? descriptor.close() }
        var info = stat()
        var header = Data(count: 24)
        guard fstat(descriptor.rawValue, &info) == 0,
              let count = try? header.withUnsafeMutableBytes({ try descriptor.read(into: $0) }) else { return false }
        return Waveform.isAudiowaveformHeader(header.prefix(count), ofFileSized: Int64(info.st_size))
    }
}
