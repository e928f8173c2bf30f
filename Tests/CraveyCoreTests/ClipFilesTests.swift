@testable import CraveyCore
import Foundation
import Testing

/// A clip's files, named in one place: every name it gives parses back as what it is, and no
/// other name parses.
@Suite("A clip's files, named once")
struct ClipFilesTests {
    @Test("every name of a clip's files, finished, being written, marked for deletion or written atomically, parses back as what it is")
    func roundTrip() throws {
        for type in RecordingType.allCases {
            let clip = ClipFiles(id: RecordingID(), type: type)
            for part in ClipFiles.Part.all {
                guard let file = clip.file(part) else {
                    #expect(part == .thumbnail && type == .audio)
                    continue
                }
                let name = try #require(StoredName(file))
                #expect(name.clip == clip && name.part == part && name.marker == nil && !name.isWriting)
                #expect(StoredName(ClipFiles.marked(file))?.marker == .deleting(original: file))
                #expect(StoredName(ClipFiles.temporary(for: file))?.marker == .temporary)
                #expect(StoredFile(path: file.path) == file)
            }
            for file in clip.writing {
                let name = try #require(StoredName(file))
                #expect(name.clip == clip && name.part == .media && name.isWriting)
            }
            #expect(Set(clip.writing + clip.finished).count == clip.writing.count + clip.finished.count)
        }
    }

    @Test("names cravey never gives are nobody's: other extensions, upper-case ids, a thumbnail of a sound, paths leaving the folder")
    func foreignNames() {
        let id = RecordingID().description
        let foreign = [
            StoredFile(.recordings, "audio_\(id).mp3"), StoredFile(.recordings, "audio_\(id.uppercased()).m4a"),
            StoredFile(.recordings, "video_\(id).m4a"), StoredFile(.thumbnails, "audio_\(id).jpg"),
            StoredFile(.recordings, "audio_\(id).m4a.partial.partial"), StoredFile(.recordings, "notes.txt"),
            StoredFile(.recordings, ".deleting-notes.txt"), StoredFile(.recordings, ".audio_\(id).m4a.x.tmp"),
            StoredFile(.thumbnails, "video_\(id).json"),
        ]
        for file in foreign { #expect(StoredName(file) == nil, "\(file)") }
        for path in ["../x.m4a", "Recordings/../x", "/etc/passwd", "Recordings/Thumbnails/a/b.jpg", "Recordings/", "Recordings/.."] {
            #expect(StoredFile(path: path) == nil, "\(path)")
        }
    }
}
