import ArgumentParser
import CraveyCore

/// `cravey words [add WORD [--heard-as FORM]... | remove WORD]`: a person's own words, which the
/// transcriber listens for (``LibraryVocabulary``).
struct Words: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, add or remove your own words (names, places, terms) the transcriber listens for.",
        discussion: """
            Whisper spells a name it does not know as words it does ("Closh in one" for "Call \
            Siobhan"). The words kept here are given to the transcriber as words to listen for \
            whenever it hears a clip (`cravey transcribe`, and a new clip's words), and where it \
            still hears one a steady wrong way, --heard-as names that way: it is written as the \
            word in the words stored ("shivon" as "Siobhan"; a form of two words, "if i", takes \
            both), only where Whisper was unsure of the words it heard (an "if I" it heard \
            surely stays "if I"). A word is one word of at most 64 characters; a form one or more words, matched \
            case and accents folded. At most 60 words are kept, about as many as Whisper is given.

            `cravey words` lists them, one a line: the word, then its forms after a tab \
            (--json: an array of {"word", "heardAs"}). `cravey words add WORD` adds one, or adds \
            its --heard-as forms to the word kept, and offers to hear again the clips whose words \
            hold one of its forms: at a terminal it names them and asks; --hear-again hears them \
            without asking, one after another as `cravey transcribe ID` does (exiting with the \
            first failure's code, the word kept); otherwise it names them with the command that \
            hears each again. `cravey words remove WORD` removes it. A word changes only the \
            words heard from then on. \
            They are kept in the library's database, never outside it, and hidden from `ps` \
            once read, as a title is. A word or form refused, or a form another word has, exits \
            64; removing a word not kept exits 66; nothing changes then.
            """,
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self)

    /// `cravey words` (or `words list`): the words kept, with their forms.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the words kept, each with the forms it is heard as.")

        @OptionGroup var options: LibraryOptions
        @Flag(help: "Print a JSON array: word, heardAs (an array).") var json = false

        func run() throws {
            let words = try options.open().vocabulary.words()
            if json { return try Terminal.printJSON(words) }
            guard !words.isEmpty else {
                return Terminal.diagnostic("No words of your own yet: `cravey words add NAME` adds one for the transcriber to listen for.")
            }
            try Terminal.output(words.map { word in
                Format.visible(word.word) + (word.heardAs.isEmpty ? "" : "\t" + word.heardAs.map(Format.visible).joined(separator: ", "))
            }.joined(separator: "\n"))
        }
    }

    /// `cravey words add WORD [--heard-as FORM]...`.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a word for the transcriber to listen for, or more forms it is heard as to one kept.")

        @OptionGroup var options: LibraryOptions
        @Argument(help: ArgumentHelp("The word as it is written: a name, a place, a term.", valueName: "word")) var word: String
        @Option(name: .customLong("heard-as"), parsing: .unconditionalSingleValue,
                help: ArgumentHelp("A way it is heard wrong, written as the word (more than once for more).", valueName: "form"))
        var heardAs: [String] = []
        @Flag(help: "Hear again, without asking, the clips whose words hold one of its forms.") var hearAgain = false

        func run() throws {
            let library = try options.open(creating: true)
            let kept = try library.vocabulary.add(word, heardAs: heardAs)
            Terminal.diagnostic("Kept \"\(Format.visible(kept.word))\"" + (kept.heardAs.isEmpty ? "" : ", heard as \(kept.heardAs.map { "\"\(Format.visible($0))\"" }.joined(separator: ", "))")
                                + ". Clips heard from now on listen for it; `cravey transcribe ID` hears one again.")
            // The clips whose words hold a form it is heard as: offered to be heard again.
            let hearing = try library.vocabulary.clips(hearing: kept)
            guard !hearing.isEmpty else { return }
            let asking = !hearAgain && Terminal.isTerminal(0)
            let shown = hearing.prefix(10).map { clip in
                "\"\(Format.visible(clip.title))\"" + (hearAgain || asking ? "" : " (`cravey transcribe \(clip.id.description.prefix(8))`)")
            }
            Terminal.diagnostic("\(hearing.count) clip\(hearing.count == 1 ? " has" : "s have") words heard as it before: "
                                + shown.joined(separator: ", ") + (hearing.count > 10 ? ", and \(hearing.count - 10) more." : "."))
            guard hearAgain || (asking && (try? Terminal.confirm("Hear \(hearing.count == 1 ? "it" : "them") again now?", yes: false,
                                                                  declined: "Not heard again; --hear-again hears them.")) == true) else { return }
            try Self.hear(hearing.map(\.id), in: options)
        }

        /// Hears each of `clips` again, one after another, as `cravey transcribe ID` does (it
        /// runs in `cravey-media`, which loads the transcriber). What it says reaches a terminal
        /// as it comes (its progress); otherwise it is said here once it ends. The first
        /// failure's code is this command's, once every clip was tried.
        static func hear(_ clips: [RecordingID], in options: LibraryOptions) throws {
            let onTerminal = Terminal.isTerminal(2)
            var failure: Int32?
            for clip in clips {
                let hearing = try ChildProcess(CommandRoute.mediaExecutable, ["transcribe", clip.description, "--library", options.libraryURL.path],
                                               input: .null, output: .null, errors: onTerminal ? .inherit : .pipe)
                let said = onTerminal ? "" : String(decoding: hearing.errorsToEnd(), as: UTF8.self)
                if !said.isEmpty { Terminal.diagnostic(said, terminator: "") }
                let ended = hearing.wait()
                guard ended != ChildProcess.Termination.exit(0) else { continue }
                Terminal.diagnostic("cravey: \(clip.description.prefix(8)) was not heard again (\(ended)); the word is kept.")
                if failure == nil, case .exit(let status) = ended { failure = status } else if failure == nil { failure = 1 }
            }
            if let failure { throw ExitCode(failure) }
        }
    }

    /// `cravey words remove WORD`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a word, with the forms it is heard as.")

        @OptionGroup var options: LibraryOptions
        @Argument(help: ArgumentHelp("The word, in any case.", valueName: "word")) var word: String

        func run() throws {
            let removed = try options.open().vocabulary.remove(word)
            Terminal.diagnostic("Removed \"\(Format.visible(removed.word))\"; the words heard already keep it.")
        }
    }
}
