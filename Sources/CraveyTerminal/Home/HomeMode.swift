import CraveyKit

/// What the keys do now on the home screen, besides the player's and the recorder's keys.
enum HomeMode {
    case browsing
    /// Typing the filter.
    case filtering
    case help
    /// A line being typed on the status line.
    case prompt(Prompt)
    /// A yes-or-no question on the status line: what a yes does to this clip, as the
    /// question showed it (a yes changes it only while it is still so).
    case confirm(question: String, asked: ClipVersion, yes: Confirmed)
    /// A clean-up compared, kept or not (the look back's `c`), and what it measured.
    case cleanUp(CleanUpState, figures: String)
    /// The reminders (`t`, ``HomeReminders``).
    case reminders(RemindersView)
    /// "Remove reminder N?" on the status line, over the reminders.
    case removeReminder(Reminder, RemindersView)

    /// What a yes to a question does.
    enum Confirmed: Equatable {
        /// `d`: deletes the selected clip.
        case delete
        /// The look back's `d`: deletes the clip just recorded.
        case discard
        /// `x`: cuts the clip to the part from `start` to `end` seconds.
        case cut(start: Double, end: Double)

        /// What a no to the question about `recording` says.
        func declined(_ recording: Recording) -> String {
            switch self {
            case .discard: "Not discarded."
            case .cut: "Nothing was cut."
            case .delete: "Kept \"\(Format.visible(recording.title))\"."
            }
        }
    }

    /// A line a person types: its question, what is typed so far and what it is for.
    struct Prompt {
        enum Purpose {
            /// `e`: the title, the notes, then the purpose of a clip (`answers` so far).
            case edit(ClipVersion, answers: [String])
            /// The look back's `t`, `n` or `u`: one word of the clip just recorded.
            case lookBack(ClipVersion, field: Int)
            /// `a` or `e` in the reminders: the time, the days, then the clip of a reminder
            /// (nil: a new one; `answers` so far), over the reminders shown.
            case reminder(Reminder?, RemindersView, answers: [String])
        }
        var question: String
        var text: String
        var purpose: Purpose

        /// The questions of a clip's words, in order: the title, the notes, the purpose.
        static let questions = LookBackChoice.questions.map { $0 + ":" }

        init(question: String, text: String, purpose: Purpose) {
            (self.question, self.text, self.purpose) = (question, text, purpose)
        }

        /// What the status line goes back to once it is answered or given up: the reminders
        /// for a reminder's line, else the list.
        var after: HomeMode {
            if case .reminder(_, let view, _) = purpose { .reminders(view) } else { .browsing }
        }

        /// Asks for word `field` (0 the title, 1 the notes, 2 the purpose) of `asked`'s clip,
        /// filled in with what it is now.
        init(field: Int, of asked: ClipVersion, purpose: Purpose) {
            let recording = asked.recording
            question = Self.questions[field]
            text = [recording.title, recording.notes ?? "", recording.purpose?.rawValue ?? ""][field]
            self.purpose = purpose
        }

        /// What refusing a line break in it says, as `cravey record`'s look back refuses one: a
        /// title, notes or purpose typed here is one line.
        var lineBreakRefused: String {
            if case .reminder(_, _, let answers) = purpose {
                return "A line break (pasted?) cannot go in a reminder's \(["time", "days", "clip"][answers.count]): nothing was changed."
            }
            let field = switch purpose {
            case .edit(_, let answers): answers.count
            case .lookBack(_, let field): field
            case .reminder: 0
            }
            return "A line break (pasted?) cannot go in the \(["title", "notes", "purpose"][field]): nothing was changed."
        }
    }
}

/// What the status line says until the next key: a result, or a refusal (`warning`).
struct HomeMessage: Equatable {
    let text: String
    let warning: Bool
}
