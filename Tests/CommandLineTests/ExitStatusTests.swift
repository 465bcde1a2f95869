import Foundation
import Overlay
import Testing
import VideoWM
import ServeCache
import VideoWMServe
@testable import videowm

/// The command line's funnel: every kind of library error gets docs/design/contract.md's exit status, decided
/// from the error's type and values, never from its text.
@Suite("exit status for each kind of error")
struct ExitStatusTests {
    typealias ExitStatus = videowm.ExitStatus

    static let diskFull = ErrorCode(errno: ENOSPC)
    static let outOfMemory = ErrorCode(errno: ENOMEM)
    static let invalid = ErrorCode(value: -22, message: "Invalid argument")

    @Test func eachAreaHasItsStatus() {
        let cases: [(any Error, videowm.ExitStatus)] = [
            (UsageError("unknown option --x", command: "transcode"), .usage),
            (ConfigError(file: "m.json", path: "watermarks[0].size", problem: "must be between"), .usage),
            (CSVError(file: "s.csv", line: 2, row: 1, problem: "'id' is empty"), .usage),
            (RequestError(subject: "--at 99", problem: "the video lasts only 5 s"), .usage),
            (EncoderError(encoder: "libx264", file: "o.mp4", problem: .openFailed, code: Self.invalid), .usage),
            // Settings videowm chose itself (a smart-rendered span's): its fault, never the user's usage error (issue 44).
            (EncoderError(encoder: "libx264", file: "o.mp4", problem: .openFailed, code: Self.invalid, origin: .library), .software),
            (RenderError(file: "in.mp4", reason: "a mark is visible in every GOP"), .usage),
            (InputError.missing("in.mp4"), .noInput),
            (InputError(file: "in.mp4", problem: .permissionDenied), .noInput),
            (MediaError(file: "in.mp4", operation: "decoding", code: Self.invalid), .dataError),
            (OutputError.exists("o.mp4"), .cannotCreate),
            (OutputError(file: "o.mp4", stage: .writing, operation: "writing"), .ioError),
            (ResourceError.memory("allocating a frame"), .resourcesExhausted),
            (ListenError(address: ListenAddress("127.0.0.1:80")!, code: EADDRINUSE), .resourcesExhausted),
            (CacheError(path: "/cache", operation: "creating the cache folder", code: EACCES), .cannotCreate),
            (InterruptedError(), .interrupted),
            (NobodyIdentified(), .nobodyIdentified),
            (TextEngineError(.fontEngineFailed(operation: "FT_Init_FreeType", reason: "out of memory")), .dataError),
            (KeyFileError(file: "platform.key", problem: .accessibleByOthers(mode: 0o100644)), .usage),
            (KeyFileError(file: "platform.key", problem: .wrongSize(bytes: 31, expected: 32...32)), .usage),
            (CryptoError(operation: "RAND_bytes"), .resourcesExhausted),
            // A trace of a still needs Tesseract's model: missing, as a missing font is.
            (TextRecognitionError(.libraryMissing), .noInput),
            (TextRecognitionError(.modelMissing(language: "eng")), .noInput),
            (TextRecognitionError(.engineUnavailable), .resourcesExhausted),
        ]
        for (error, status) in cases {
            #expect(exitStatus(for: error) == status, "\(error)")
        }
    }

    /// What a failed call's code says overrides where it happened: a full disk is a write
    /// error even while creating; exhausted memory is 71 wherever it strikes.
    @Test func theCodeBehindAFailureDecidesFirst() {
        #expect(exitStatus(for: OutputError(file: "o.mp4", stage: .creating, operation: "opening for writing", code: Self.diskFull)) == .ioError)
        #expect(exitStatus(for: OutputError(file: "o.mp4", stage: .creating, operation: "opening for writing", code: Self.invalid)) == .cannotCreate)
        #expect(exitStatus(for: MediaError(file: "in.mp4", operation: "decoding", code: Self.outOfMemory)) == .resourcesExhausted)
        #expect(exitStatus(for: InputError(file: "in.mp4", problem: .cannotOpen, code: ErrorCode(errno: EMFILE))) == .resourcesExhausted)
        #expect(exitStatus(for: EncoderError(encoder: "libx264", problem: .openFailed, code: Self.outOfMemory)) == .resourcesExhausted)
    }

    @Test func layerErrorsFollowTheirCause() {
        let origin = LayerSpec.Origin(file: "m.json", path: "watermarks[0]")
        func layer(_ cause: LayerError.Cause) -> LayerError { LayerError(layerIndex: 0, origin: origin, field: nil, cause: cause) }
        #expect(exitStatus(for: layer(.text(.textEmpty))) == .usage)
        #expect(exitStatus(for: layer(.text(.invalidLength(field: .shadowBlur, value: -1)))) == .usage)
        #expect(exitStatus(for: layer(.text(.fontFileMissing(path: "/x.ttf")))) == .noInput)
        #expect(exitStatus(for: layer(.text(.fontNotFound(family: "X")))) == .noInput)
        #expect(exitStatus(for: layer(.text(.fontUnreadable(path: "/x.ttf", reason: "not a font")))) == .dataError)
        // Fonts that could not be loaded for want of memory or descriptors are no font's fault.
        #expect(exitStatus(for: layer(.text(.systemResources(.fileDescriptors, operation: "loading fontconfig's configuration")))) == .resourcesExhausted)
        #expect(exitStatus(for: layer(.text(.systemResources(.memory, operation: "opening the font file /x.ttf")))) == .resourcesExhausted)
        #expect(exitStatus(for: layer(.image(InputError.missing("logo.png")))) == .noInput)
        #expect(exitStatus(for: layer(.image(MediaError(file: "logo.png", detail: "not an image")))) == .dataError)
    }

    /// A batch exits with its gravest row failure; stamp -d with its first.
    @Test func severalFailuresExitAsTheOneChosen() {
        #expect(exitStatus(for: CommandFailures(exitsAs: OutputError.exists("a.png"))) == .cannotCreate)
        let rows: [any Error] = [MediaError(file: "in.mp4", detail: "damaged"), OutputError(file: "o.mp4", stage: .writing, operation: "writing"),
                                 OutputError.exists("p.mp4")]
        #expect(rows.map(exitStatus(for:)).max() == .ioError)
    }

    @Test func linesAreTheErrorsOwnDescriptions() {
        #expect(errorLine(for: OutputError.exists("o.mp4")) == "o.mp4: already exists (use -y to replace it)")
        #expect(errorLine(for: UsageError("-c CONFIG is required", command: "stamp")) == "stamp: -c CONFIG is required (see 'videowm help stamp')")
        #expect(errorLine(for: InterruptedError()) == "interrupted")
    }
}
