/// What the status line holds: the mode (a filter, a prompt or a question being answered, or
/// the help), the message until the next key, and whether a question was drawn yet.
struct HomeDialog {
    var mode = HomeMode.browsing {
        // A question asked now has not been shown yet (``questionShown``).
        didSet { questionShown = false }
    }
    /// What the status line says until the next key: a result, or a refusal (`warning`).
    var message: HomeMessage?
    /// Whether the question on the status line (``HomeMode/confirm(question:asked:yes:)``,
    /// ``HomeMode/removeReminder(_:_:)``) has
    /// been drawn: only a key read after that answers it, as `cravey`'s questions read only what
    /// is typed after they ask.
    private(set) var questionShown = false

    /// The frame is drawn: a question on the status line is shown from now on.
    mutating func drawn() {
        switch mode {
        case .confirm, .removeReminder: questionShown = true
        default: break
        }
    }

    /// Says `text` on the status line.
    mutating func say(_ text: String, warning: Bool = false) {
        message = HomeMessage(text: text, warning: warning)
    }

    /// Whether a line is being typed on the status line (a prompt).
    var typesLine: Bool {
        if case .prompt = mode { true } else { false }
    }
}
