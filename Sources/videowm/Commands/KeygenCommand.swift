import VideoWM

/// `videowm keygen FILE`
struct KeygenCommand: ToolCommand {
    static let name = "keygen"
    var output = ""
    var quiet = false

    static var optionGroups: [OptionGroup<Self>] {
        [OptionGroup("Options", [
            .flag("-q", "--quiet", help: "print nothing when the key is written") { $0.quiet = true },
        ])]
    }

    static var files: FileArguments<Self> { .exactly(1, described: "one key FILE to create") { $0.output = $1[0] } }

    static let help = CommandHelp(
        usage: "videowm keygen FILE [-q]",
        discussion: """
        Writes a new key: 32 random bytes in FILE, readable and writable by you only (mode
        0600). Name it to every command that marks or traces (their key-file option, see
        the Mark options, or VIDEOWM_KEY_FILE=FILE): each row's random mark path is then derived from the key
        (HMAC-SHA256 through HKDF) and the row's text, so nobody without the key can compute
        a student's path and frame them with a forged leak. Keep it secret and keep a copy:
        copies marked with it can only be traced with it. The key is never printed, and a
        key file that group or others can read is refused (chmod 600 FILE).
        """,
        epilogue: """
        Exit status: 0 when FILE was written; 73 when FILE exists (a key is never replaced)
        or its folder is missing or not writable.
        """)

    mutating func validate() throws {}

    func run(console: Console) throws {
        try SecretKey.generate().write(toNewFile: output)
        if !quiet { console.info("wrote a new key to \(output) (mode 0600); keep it secret and keep a copy") }
    }
}
