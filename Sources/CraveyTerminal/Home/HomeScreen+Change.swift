import CraveyCommands
import CraveyKit
import Foundation

/// `e`, `x` and `d` (and the look back's words and discard): lines typed on the status line, and
/// the change made through the library's door on a thread of its own (the writers' lock may wait
/// for another process), its result or refusal shown on the status line.
extension HomeScreen {
    /// The questions of `e`, in order: the title, the notes, the purpose.
    static let editQuestions = [
        "Title (at most \(RecordingMetadata.maxTitleLength) characters; empty: \"Recording <date>\"):",
        "Notes (at most \(RecordingMetadata.maxNotesLength) characters; empty: none):",
        "Purpose (motivational, craving, reflection or milestone; empty: none):",
    ]

    /// Asks for `recording`'s title, notes and purpose, each filled in with what it is now.
    func edit(_ recording: Recording) {
        mode = .prompt(Prompt(question: Self.editQuestions[0], text: recording.title, purpose: .edit(library.version(of: recording), answers: [])))
    }

    /// A key typed into a prompt: Enter answers, Escape gives up, Backspace, Ctrl-U and Ctrl-W
    /// take back a character, the line, a word.
    func type(_ key: TerminalScreen.Key, into prompt: Prompt) {
        var prompt = prompt
        switch key {
        case .character(let character):
            prompt.text.append(character)
        case .backspace:
            prompt.text = String(prompt.text.dropLast())
        case .control("u"):
            prompt.text = ""
        case .control("w"):
            prompt.text = String(prompt.text.reversed().drop(while: { $0 == " " }).drop(while: { $0 != " " }).reversed())
        case .escape:
            mode = .browsing
            message = ("Nothing was changed.", false)
            return
        case .enter:
            return answer(prompt)
        default:
            break
        }
        mode = .prompt(prompt)
    }

    private func answer(_ prompt: Prompt) {
        mode = .browsing
        switch prompt.purpose {
        case .edit(let asked, var answers):
            answers.append(prompt.text)
            guard answers.count == Self.editQuestions.count else {
                let recording = asked.recording
                let current = [recording.title, recording.notes ?? "", recording.purpose?.rawValue ?? ""][answers.count]
                mode = .prompt(Prompt(question: Self.editQuestions[answers.count], text: current, purpose: .edit(asked, answers: answers)))
                return
            }
            change(asked, Array(answers.enumerated()))
        case .lookBack(let asked, let field):
            change(asked, [(field, prompt.text)])
        }
    }

    /// Changes the words (0 the title, 1 the notes, 2 the purpose) of the clip `asked` shows as
    /// `cravey edit` does, in one change, only while the clip is still so: a refusal changes
    /// nothing.
    private func change(_ asked: ClipVersion, _ fields: [(offset: Int, element: String)]) {
        let library = library, inbox = inbox, id = asked.recording.id
        let answers = fields.map { ($0.offset, $0.element) }
        Task {
            do {
                let updated = try await onDedicatedThread(named: "cravey.edit") {
                    try library.edit(id, asked: asked) { metadata in
                        for (field, text) in answers {
                            switch field {
                            case 0: metadata.title = text.isEmpty ? nil : text
                            case 1: metadata.notes = text.isEmpty ? nil : text
                            default: metadata.purpose = try RecordingMetadata.purpose(named: text)
                            }
                        }
                    }
                }
                let trimmed = answers.filter { field, text in
                    field < 2 && !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                        && text.trimmingCharacters(in: .whitespacesAndNewlines) != text
                }.map { $0.0 == 0 ? "title" : "notes" }
                inbox.post { $0.changed(updated, trimmed: trimmed) }
            } catch {
                inbox.post { home in
                    home.say(error, " Nothing was changed.")
                    home.refresh()
                }
            }
        }
    }

    private func changed(_ recording: Recording, trimmed: [String]) {
        let note = trimmed.isEmpty ? "" : " (the spaces at the ends of the \(trimmed.joined(separator: " and ")) were removed)"
        message = ("Updated \"\(Format.visible(recording.title))\"\(note).", false)
        if lookBack?.id == recording.id { lookBack = recording }
        refresh()
    }

    /// Deletes the clip `asked` shows (asked first, by `d`) through the door: its file,
    /// thumbnail and row, only while it is still so.
    func delete(_ asked: ClipVersion) {
        remove(asked, said: "Deleted", kept: "It was kept")
    }

    /// Deletes the clip just recorded (the look back's `d`), only while it is still as asked.
    func discard(_ asked: ClipVersion) {
        remove(asked, said: "Discarded", kept: "The clip was kept")
    }

    private func remove(_ asked: ClipVersion, said: String, kept: String) {
        let id = asked.recording.id
        if playing?.recording.id == id { playing?.manager.stop() }
        let library = library, inbox = inbox
        Task {
            do {
                let deleted = try await onDedicatedThread(named: "cravey.delete") { try library.delete(id, asked: asked) }
                inbox.post { home in
                    if home.lookBack?.id == id { home.lookBack = nil }
                    home.message = ("\(said) \"\(Format.visible(deleted.title))\".", false)
                    home.refresh()
                }
            } catch {
                inbox.post { $0.say(error, " \(kept).") }
            }
        }
    }

    /// `x`: proposes to cut the silence before the first sound and after the last of
    /// `recording`, found from its stored waveform as `cravey trim --auto` finds it, and asks.
    func proposeCut(_ recording: Recording) {
        let library = library, inbox = inbox
        let asked = library.version(of: recording)  // cut only while it is still the clip the proposal is of
        Task {
            do {
                let proposal = try await library.proposedTrim(of: recording)
                inbox.post { home in
                    let title = Format.visible(recording.title)
                    if let proposal, !proposal.keepsAll(of: recording.duration) {
                        // The clip's title heads its details above: the question fits 80 columns without it.
                        let question = "Cut to \(ClipTime.text(proposal.start))-\(ClipTime.text(proposal.end)) of \(ClipTime.text(recording.duration))? The cut parts cannot be recovered. [y/N]"
                        home.mode = .confirm(question: question, asked: asked, yes: .cut(start: proposal.start, end: proposal.end))
                    } else {
                        home.message = (proposal == nil ? "No sound above the noise of \"\(title)\": nothing to cut." : "Nothing to cut: the sound fills \"\(title)\".", false)
                    }
                    home.refresh()
                }
            } catch {
                inbox.post { home in
                    home.say(error, " Nothing was cut.")
                    home.refresh()
                }
            }
        }
    }

    /// Cuts the clip `asked` shows to `start`-`end` seconds (asked first, by `x`) through the
    /// door: one durable replacement that keeps its id, words and plays, made only while the
    /// clip is still so. A play of it stops first.
    func cut(_ asked: ClipVersion, from start: Double, to end: Double) {
        let recording = asked.recording
        if playing?.recording.id == recording.id { playing?.manager.stop() }
        let library = library, inbox = inbox
        message = ("Cutting \"\(Format.visible(recording.title))\"...", false)
        Task {
            do {
                let trimmed = try await library.trim(recording, from: start, to: end, asked: asked)
                inbox.post { home in
                    if home.lookBack?.id == trimmed.id { home.lookBack = trimmed }
                    home.message = ("Trimmed \"\(Format.visible(trimmed.title))\": \(ClipTime.text(recording.duration)) -> \(ClipTime.text(trimmed.duration)).", false)
                    home.refresh()
                }
            } catch {
                inbox.post { home in
                    home.say(error, " Nothing was cut.")
                    home.refresh()
                }
            }
        }
    }
}
