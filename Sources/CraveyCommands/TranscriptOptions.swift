import ArgumentParser
import CraveyCore
import Foundation

/// `cravey transcript`'s command line and how it writes a transcript (plain text, SubRip,
/// WebVTT or JSON); shared by `cravey` (which lists it in its help) and `cravey-media` (whose
/// `TranscriptMedia` command runs it). See ``Cravey``.
package struct TranscriptOptions: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "transcript",
        abstract: "Print the words said in a clip (made by `cravey transcribe`), as text, subtitles or JSON.",
        discussion: """
            --format txt (the default) prints the words as one text; srt and vtt print them as \
            SubRip or WebVTT subtitles, a cue per sentence (or every 12 words, or at a pause of \
            a second or more), for a player to show beside the clip (in SubRip, which has no \
            escapes, "-->" is written "-- >" and "<" ">" as "‹" "›"; WebVTT escapes & < > as \
            &amp; &lt; &gt;); json (or --json) prints the \
            file kept beside the clip as it is: \
            {"language":"en","words":[{"end":0.9,"start":0.52,"text":"Hello"}]}, times in \
            seconds from the clip's start. The language heard (or the one the \
            transcribe.language setting named) is in the JSON, and on stderr with the other \
            formats ("Language: en").

            --edit opens the words in your editor ($VISUAL, else $EDITOR, else vi), one sentence \
            a line, in a file kept inside the library (mode 0600) and removed after: correct what \
            the transcriber misheard, keeping one line a sentence (a blank line drops one). A \
            sentence left as it was keeps its words' times; a changed one has its words spread \
            over the time it took. The editor failing, or leaving the file empty or unchanged, \
            changes nothing. Lines may end in LF or CRLF, the last with one or not. Lines that \
            are no longer one a sentence, or a file grown past 1 MiB (or twice what it was \
            given) or words making a transcript of more than 16 MiB, exit 64, and words changed \
            meanwhile by another cravey (a trim, a transcription) exit 75, nothing changed. A \
            file left by an edit a kill cut off is reported by `cravey doctor`, and removed by \
            `cravey doctor --repair`.

            A clip with no transcript yet exits 66 (`cravey transcribe ID` makes \
            it), or 69 when the transcriber is not installed, saying how to add it.
            """)

    /// The ways a transcript is written.
    package enum Format: String, ExpressibleByArgument, CaseIterable, Sendable {
        case txt, srt, vtt, json
    }

    @OptionGroup package var options: LibraryOptions
    @Argument(help: "The recording's id, or any unique prefix of it.", completion: Completion.recordingIDs) package var id: String
    @Option(help: "How to write the words: as text, SubRip or WebVTT subtitles, or JSON.") package var format: Format = .txt
    @Flag(help: "The same as --format json.") package var json = false
    @Flag(help: "Correct the words in your editor ($VISUAL or $EDITOR), one sentence a line.") package var edit = false

    package init() {}

    package func validate() throws {
        if edit && (json || format != .txt) {
            throw ValidationError("--edit corrects the words; it prints nothing, so it does not go with --format or --json.")
        }
        if json && format != .txt && format != .json {
            throw ValidationError("--json is --format json; it does not go with --format \(format.rawValue).")
        }
    }

    /// The transcript as the format asked for writes it, ending in a line break.
    package func text(of transcript: Transcript) -> String {
        switch json ? .json : format {
        case .txt: return transcript.words.isEmpty ? "" : transcript.text + "\n"
        case .json: return String(decoding: transcript.data, as: UTF8.self) + "\n"
        case .srt:
            return Self.cues(of: transcript).enumerated().map { index, cue in
                "\(index + 1)\n\(Self.time(cue.start, comma: true)) --> \(Self.time(cue.end, comma: true))\n\(Self.subRip(cue.text))\n"
            }.joined(separator: "\n")
        case .vtt:
            return "WEBVTT\n\n" + Self.cues(of: transcript).map { cue in
                "\(Self.time(cue.start, comma: false)) --> \(Self.time(cue.end, comma: false))\n\(Self.webVTT(cue.text))\n"
            }.joined(separator: "\n")
        }
    }

    /// The words in cues: a sentence each (``Transcript/sentences``).
    static func cues(of transcript: Transcript) -> [(start: Double, end: Double, text: String)] {
        transcript.sentences.map { sentence in
            (sentence.first!.start, sentence.last!.end, sentence.map(\.text).joined(separator: " "))
        }
    }

    /// A cue's text as SubRip shows it, which has no escapes: "-->" (which may make a line a
    /// cue's times) is written "-- >", and "<" and ">" (which open and close its tags, `<b>`)
    /// as "‹" and "›".
    static func subRip(_ text: String) -> String {
        text.replacingOccurrences(of: "-->", with: "-- >").replacingOccurrences(of: "<", with: "‹").replacingOccurrences(of: ">", with: "›")
    }

    /// A cue's text escaped as WebVTT asks: "&", "<" and ">" as `&amp;`, `&lt;` and `&gt;`
    /// (so no "-->" is left in it either).
    static func webVTT(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// `00:01:02,345` (SubRip) or `00:01:02.345` (WebVTT); a time past 99:59:59.999, the most
    /// either writes, is written as that.
    static func time(_ seconds: Double, comma: Bool) -> String {
        let milliseconds = seconds >= 0 ? Int((min(seconds, 359_999.999) * 1000).rounded()) : 0
        func digits(_ value: Int, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(milliseconds / 3_600_000, 2) + ":" + digits(milliseconds / 60_000 % 60, 2) + ":"
            + digits(milliseconds / 1000 % 60, 2) + (comma ? "," : ".") + digits(milliseconds % 1000, 3)
    }
}
