// In-process measurements for scripts/bench.
//
//   cravey-bench durations DIR        duration(of:) of every file in DIR, in one process
//   cravey-bench latency SOURCE [N]   start() to first captured sample, N recordings of 0.5 s
//   cravey-bench thumbnail VIDEO [N]  a thumbnail made and stored N times, the fastest run
//   cravey-bench loudness FILE        CPU seconds of LoudnessMeter.measure(fileAt:) of FILE, and of
//                                     the meter alone over as long a stereo noise at 48 kHz
//   cravey-bench analysis FILE        CPU seconds of one decoding of FILE's audio through the
//                                     loudness meter, the peak meter, both, and neither
//   cravey-bench propose LIBRARY ID [N]  `trim --auto`'s proposal for clip ID: its stored waveform
//                                     read and the cut proposed, N times (default 20); the fastest
//   cravey-bench play FILE SINK       FILE (outside a library, any format FFmpeg reads) played to
//                                     SINK with its pictures in a window, as `cravey play` does;
//                                     the pictures shown and dropped
import CraveyKit
import Foundation

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let arguments = CommandLine.arguments
switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
case (3, "durations"):
    let folder = URL(fileURLWithPath: arguments[2])
    let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
    var total = 0.0
    let elapsed = try ContinuousClock().measure {
        for file in files { total += try MediaProbe.duration(of: .outside(file)) }
    }
    print("{\"files\": \(files.count), \"seconds\": \(seconds(elapsed)), \"totalDuration\": \(total)}")
case (3, "latency"), (4, "latency"):
    let count = arguments.count == 4 ? Int(arguments[3]) ?? 5 : 5
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let library = try RecordingLibrary(at: folder)
    var latencies: [Double] = []
    var intervals: [Double] = []
    for _ in 0..<count {
        let recorder = try await library.record(RecordingOptions(source: arguments[2], maxDuration: 0.5))
        var arrivals: [ContinuousClock.Instant] = []
        for await event in recorder.events {
            if case .level = event { arrivals.append(.now) }
        }
        let result = try await recorder.result()
        latencies.append(result.startLatency)
        intervals.append(contentsOf: zip(arrivals.dropFirst(), arrivals).map { seconds($0 - $1) })
        await recorder.discard()
    }
    let sorted = intervals.sorted()
    let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    print("{\"latencies\": \(latencies), \"medianLevelInterval\": \(median)}")
case (3, "loudness"):
    // CPU seconds (the machine may be busy with other work), from `clock()`.
    func cpu(_ body: () throws -> Void) rethrows -> Double {
        let start = clock()
        try body()
        return Double(clock() - start) / Double(CLOCKS_PER_SEC)
    }
    let file = URL(fileURLWithPath: arguments[2])
    var measurement: LoudnessMeasurement?
    let decoding = try cpu { measurement = try LoudnessMeter.measure(fileAt: .outside(file)) }
    let length = try MediaProbe.duration(of: .outside(file))
    // Noise from a xorshift generator: SystemRandomNumberGenerator makes a system call a number.
    var state: UInt32 = 2_463_534_242
    let noise = (0..<Int(length * 48_000) * 2).map { _ -> Float in
        state ^= state << 13; state ^= state >> 17; state ^= state << 5
        return Float(state) / Float(UInt32.max) - 0.5
    }
    var meter = LoudnessMeter(sampleRate: 48_000, channels: 2)
    let metering = cpu { meter.append(noise) }
    print("{\"audioSeconds\": \(length), \"measureFileCPUSeconds\": \(decoding), \"meterStereo48kCPUSeconds\": \(metering), \"integrated\": \(measurement?.integrated ?? .nan), \"noiseIntegrated\": \(meter.measurement.integrated)}")
case (3, "analysis"):
    let media = MediaLocation.outside(URL(fileURLWithPath: arguments[2]))
    var seconds: [String: Double] = [:]
    for (name, loudness, waveform) in [("neither", false, false), ("loudness", true, false), ("waveform", false, true), ("both", true, true)] {
        let start = clock()
        _ = try AudioAnalysis.measure(media, loudness: loudness, waveform: waveform)
        seconds[name] = Double(clock() - start) / Double(CLOCKS_PER_SEC)
    }
    print("{\"decodeCPUSeconds\": \(seconds["neither"]!), \"loudness\": \(seconds["loudness"]!), \"waveform\": \(seconds["waveform"]!), \"both\": \(seconds["both"]!)}")
case (3, "thumbnail"), (4, "thumbnail"):
    let count = arguments.count == 4 ? Int(arguments[3]) ?? 5 : 5
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try RecordingLibrary(at: folder).store
    var times: [Double] = []
    for _ in 0..<count {
        times.append(seconds(try ContinuousClock().measure {
            let jpeg = try Thumbnailer.jpeg(forVideoAt: .outside(URL(fileURLWithPath: arguments[2])))
            try store.write { tx in try tx.store(jpeg, as: .thumbnail, of: ClipFiles(id: RecordingID(), type: .video)) }
        }))
    }
    print("{\"runs\": \(count), \"fastest\": \(times.min() ?? 0), \"median\": \(times.sorted()[count / 2])}")
case (4, "propose"), (5, "propose"):
    let library = try RecordingLibrary(at: URL(fileURLWithPath: arguments[2]), creating: false)
    let recording = try library.recording(matching: arguments[3])
    let count = arguments.count == 5 ? Int(arguments[4]) ?? 20 : 20
    var times: [Double] = []
    var proposal: TrimProposal?
    for _ in 0..<count {
        times.append(seconds(ContinuousClock().measure {
            proposal = library.analysis.storedWaveform(of: recording)?.proposedTrim(duration: recording.duration)
        }))
    }
    print("{\"runs\": \(count), \"fastest\": \(times.min() ?? 0), \"start\": \(proposal?.start ?? -1), \"end\": \(proposal?.end ?? -1)}")
case (4, "play"):
    let file = MediaLocation.outside(URL(fileURLWithPath: arguments[2]))
    let manager = PlaybackManager(fileAt: file, duration: try MediaProbe.duration(of: file), title: "cravey-bench",
                                  options: PlaybackOptions(sink: arguments[3], normalize: false, countsPlay: false, showsVideo: true))
    try await manager.start()
    if let problem = manager.videoProblem { FileHandle.standardError.write(Data("\(problem)\n".utf8)) }
    let played = try await manager.result()
    print("{\"picturesShown\": \(played.picturesShown), \"picturesDropped\": \(played.picturesDropped), \"completed\": \(played.completed)}")
default:
    FileHandle.standardError.write(Data("usage: cravey-bench durations DIR | latency SOURCE [N] | loudness FILE | analysis FILE | thumbnail VIDEO [N] | propose LIBRARY ID [N] | play FILE SINK\n".utf8))
    exit(64)
}
