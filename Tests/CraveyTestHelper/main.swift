// A helper the tests run as several processes at once against one library.
//
//   cravey-test-helper plays LIBRARY ID COUNT   records COUNT plays of the recording ID
import CraveyKit
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 5, arguments[1] == "plays", let id = RecordingID(arguments[3]),
      let count = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: cravey-test-helper plays LIBRARY ID COUNT\n".utf8))
    exit(64)
}
do {
    let library = try RecordingLibrary(at: URL(fileURLWithPath: arguments[2]))
    for _ in 0..<count {
        _ = try library.store.write { tx in try tx.repository.recordPlay(of: id, secondsListened: 1.5, completed: true, at: Date()) }
    }
} catch {
    FileHandle.standardError.write(Data("cravey-test-helper: \(error)\n".utf8))
    exit(1)
}
