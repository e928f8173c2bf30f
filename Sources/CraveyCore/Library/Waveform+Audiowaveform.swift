import Foundation

/// audiowaveform's two formats (its `doc/DataFormat.md`): the binary `.dat` a clip's peaks are
/// kept in, and the JSON that wavesurfer.js and peaks.js read as it is.
extension Waveform {
    /// The `.dat` header's size in version 2: version, flags, rate, samples per peak, length, channels.
    private static let headerSize = 24
    /// The largest waveform file read: 670 hours of sound at 100 peaks a second.
    package static let largestFile = 1 << 30

    /// The peaks in audiowaveform's binary format, version 2: a 24-byte little-endian header
    /// (version 2, flags 0 for 16-bit values, sample rate, samples per peak, the number of
    /// peaks, 1 channel), then each peak's minimum and maximum as little-endian `int16`s.
    /// `audiowaveform -i FILE.dat -o FILE.png` draws it.
    public func audiowaveformData() -> Data {
        var data = Data(capacity: Self.headerSize + peaks.count * 4)
        func append(_ value: Int32) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        for field in [2, 0, Int32(clamping: sampleRate), Int32(clamping: samplesPerPeak), Int32(truncatingIfNeeded: peaks.count), 1] {
            append(field)
        }
        peaks.withUnsafeBufferPointer { peaks in
            var values = [Int16](repeating: 0, count: peaks.count * 2)
            for (index, peak) in peaks.enumerated() {
                values[2 * index] = peak.min.littleEndian
                values[2 * index + 1] = peak.max.littleEndian
            }
            values.withUnsafeBytes { data.append(contentsOf: $0) }
        }
        return data
    }

    /// What the header at the start of `bytes` says, when it is audiowaveform's binary format
    /// (version 1 or 2, a rate, samples per peak and 1 to 64 channels): where the values start,
    /// how wide each is, how many peaks of how many channels follow, and the file's whole size.
    private static func header(_ bytes: UnsafeRawBufferPointer)
        -> (rate: Int, perPeak: Int, start: Int, width: Int, length: Int, channels: Int, size: Int)? {
        guard bytes.count >= 20 else { return nil }
        func field(_ index: Int) -> Int32 {
            Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * index, as: Int32.self))
        }
        let version = field(0)
        guard version == 1 || (version == 2 && bytes.count >= Self.headerSize) else { return nil }
        let width = field(1) & 1 == 1 ? 1 : 2
        let (rate, perPeak, length) = (Int(field(2)), Int(field(3)), Int(UInt32(bitPattern: field(4))))
        let channels = version == 2 ? Int(field(5)) : 1
        let start = version == 2 ? Self.headerSize : 20
        guard rate > 0, perPeak > 0, (1...64).contains(channels) else { return nil }
        return (rate, perPeak, start, width, length, channels, start + length * channels * 2 * width)
    }

    /// Whether `header` (a file's first 24 bytes or more) is audiowaveform's binary format for a
    /// file of `size` bytes: what a waveform file is checked with without reading it all.
    package static func isAudiowaveformHeader(_ header: Data, ofFileSized size: Int64) -> Bool {
        header.withUnsafeBytes { bytes in Self.header(bytes).map { Int64($0.size) == size } ?? false }
    }

    /// Reads audiowaveform's binary format, versions 1 and 2, 8- or 16-bit, any number of
    /// channels (taken together, as cravey keeps them; 8-bit values scaled to 16 bits). Nil for
    /// anything else: a header that is not one, or data shorter or longer than it says.
    package init?(audiowaveformData data: Data) {
        let parsed: Waveform? = data.withUnsafeBytes { bytes in
            guard let header = Self.header(bytes), header.size == bytes.count else { return nil }
            let (start, width, channels) = (header.start, header.width, header.channels)
            var peaks = [Peak](repeating: Peak(min: 0, max: 0), count: header.length)
            for index in 0..<header.length {
                var low = Int16.max, high = Int16.min
                for channel in 0..<channels {
                    let offset = start + ((index * channels + channel) * 2) * width
                    let (min, max): (Int16, Int16) = width == 1
                        ? (Int16(bytes.load(fromByteOffset: offset, as: Int8.self)) << 8,
                           Int16(bytes.load(fromByteOffset: offset + 1, as: Int8.self)) << 8)
                        : (Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int16.self)),
                           Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 2, as: Int16.self)))
                    low = Swift.min(low, min)
                    high = Swift.max(high, max)
                }
                peaks[index] = Peak(min: low, max: high)
            }
            return Waveform(sampleRate: header.rate, samplesPerPeak: header.perPeak, peaks: peaks)
        }
        guard let parsed else { return nil }
        self = parsed
    }

    /// The peaks as audiowaveform's JSON, version 2, on one line: `version`, `channels` (1),
    /// `sample_rate`, `samples_per_pixel`, `bits` (16), `length` and `data` (each peak's minimum
    /// then maximum), the object wavesurfer.js and peaks.js take as it is.
    public func audiowaveformJSON() -> Data {
        var text = "{\"version\":2,\"channels\":1,\"sample_rate\":\(sampleRate),\"samples_per_pixel\":\(samplesPerPeak),"
            + "\"bits\":16,\"length\":\(peaks.count),\"data\":["
        text.reserveCapacity(text.utf8.count + peaks.count * 12 + 2)
        for (index, peak) in peaks.enumerated() {
            if index > 0 { text += "," }
            text += String(peak.min)
            text += ","
            text += String(peak.max)
        }
        text += "]}"
        return Data(text.utf8)
    }
}
