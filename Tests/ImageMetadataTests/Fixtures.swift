import Foundation
import TestSupport
import Testing

/// Test stills made by ffmpeg, tagged by exiftool (an independent writer), and read back by
/// exiftool (an independent reader), in a private temporary folder.
struct Fixtures {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("videowm-metadata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func cleanUp() { if ProcessInfo.processInfo.environment["KEEP_FIXTURES"] == nil { try? FileManager.default.removeItem(at: directory) } }
    // KEEP_FIXTURES=1 leaves the folders in place, to look at a failure with exiftool.


    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

    func write(_ bytes: [UInt8], to name: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path(name))) }

    @discardableResult
    func run(_ executable: String, _ arguments: [String]) throws -> String {
        let outcome = try ChildProcess.run("/usr/bin/\(executable)", arguments, directory: directory.path)
        guard outcome.status == 0 else {
            throw FixtureError(description: "\(executable) \(arguments.joined(separator: " ")) exited \(outcome.status)")
        }
        return outcome.text
    }

    /// A small still without metadata, encoded by ffmpeg (`name`'s extension picks the format).
    func plainStill(_ name: String, codecArguments: [String] = []) throws {
        try run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=64x48", "-frames:v", "1"] + codecArguments + [name])
    }

    /// Writes tags with exiftool (`-Tag=value` arguments), in place.
    func tag(_ name: String, _ assignments: [String]) throws {
        try run("exiftool", ["-q", "-overwrite_original"] + assignments + [name])
    }

    /// exiftool's reading of a file: group-qualified tag names ("IFD0:Copyright") to values.
    func read(_ name: String) throws -> [String: String] {
        let json = try run("exiftool", ["-j", "-G1", "-a", "-n", name])
        guard let array = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]], let object = array.first else {
            throw FixtureError(description: "exiftool gave no JSON for \(name)")
        }
        return object.mapValues { value in (value as? [Any]).map { $0.map { "\($0)" }.joined(separator: ", ") } ?? "\(value)" }
    }

    /// exiftool's warnings and errors about a file's structure (`-validate`), none when well-formed.
    /// "Missing required" tags are not counted: a stamped still need not carry every tag the EXIF
    /// standard lists for a camera's own files (exiftool asks those of any JPEG with EXIF).
    func validationProblems(_ name: String) throws -> [String] {
        let lines = try run("exiftool", ["-validate", "-warning", "-error", "-a", "-G1", "-s", name]).split(separator: "\n").map(String.init)
        return lines.filter { !$0.contains("Validate") && !$0.contains("Missing required") }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
}

/// The tags a photographer's camera and a phone's location service would leave, for exiftool.
let cameraTags = [
    "-Copyright=Ada Lovelace 2024", "-Artist=Ada Lovelace", "-DateTimeOriginal=2024:05:06 07:08:09",
    "-CreateDate=2024:05:06 07:08:09", "-OffsetTimeOriginal=+02:00", "-Make=ExampleCam", "-Model=EC-1",
    "-LensModel=EC 35mm F2", "-SerialNumber=SN123456", "-ExposureTime=0.01", "-FNumber=2.8",
    "-GPSLatitude=48.8583", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E",
    "-Orientation#=6", "-InteropIndex=R98",
    "-XMP-dc:Rights=Ada Lovelace 2024 (XMP)", "-XMP-dc:Creator=Ada Lovelace", "-XMP-dc:Creator=Charles Babbage",
    "-XMP-photoshop:DateCreated=2024:05:06 07:08:09", "-XMP-tiff:Orientation#=6",
    "-XMP-exif:GPSLatitude=48.8583", "-XMP-exif:GPSLatitudeRef=N", "-XMP-xmp:Rating=4",
]
