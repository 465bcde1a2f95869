// Prepares a lecture once and makes one student's copy through the library, the three ways a
// platform drives it: every file written whole (`Lecture.write`), and single files made on demand
// (`StudentCopy.render`) — and checks that the two agree byte for byte.
//
//   StudentCopy VIDEO CONFIG.json OUTPUT-FOLDER [EMAIL]
//
// Exit 0 when the copy is written and every file made alone equals the written one; 1 otherwise.
import Foundation
import VideoWM

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("StudentCopy: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: StudentCopy VIDEO CONFIG.json OUTPUT-FOLDER [EMAIL]") }
let (video, configPath, folder) = (arguments[1], arguments[2], arguments[3])
let variables = ["email": arguments.count > 4 ? arguments[4] : "ada@example.com"]

// FFmpeg's and x264's own logs stay quiet, as the command line keeps them without -v.
VideoWMLibrary.configureLogging(verbose: false)

do {
    // The lecture: the input indexed, its kind and plan decided, once — for a class of students.
    let definition = LectureDefinition(name: "intro", video: video, marks: .file(configPath), segment: HLSSettings.segmentLength(seconds: 2))
    let lecture = try Lecture.prepare(definition, warn: { print("notice: \($0)") })

    // Every file of one student's copy, written whole beside its playlist (what `batch` does for a row).
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let playlist = (folder as NSString).appendingPathComponent("ada.m3u8")
    var failure: Error?
    let summary = try lecture.write([CopyRequest(variables: variables, target: try OutputTarget(path: playlist))],
                                    CopyWriting(overwrite: true, sharedFolder: nil, onFailed: { _, error in failure = error }))
    if let failure { throw failure }
    print("StudentCopy: wrote \(playlist) (\(summary.videoFrames) frames)")

    // The same copy, one file at a time (what a server does on request): each resource the
    // copy's playlist lists, rendered alone, must be the file written above at that place.
    let copy = try lecture.student(variables: variables)
    let written = try String(contentsOfFile: playlist, encoding: .utf8).split(separator: "\n").map(String.init)
    let map = written.first { $0.hasPrefix("#EXT-X-MAP:URI=\"") }.map { String($0.dropFirst(16).dropLast()) }
    let names = [map].compactMap { $0 } + written.filter { !$0.hasPrefix("#") && !$0.isEmpty }
    let resources = copy.resources()
    guard resources.count == names.count else { fail("the copy lists \(resources.count) files, the playlist \(names.count)") }
    for ((resource, ownership), name) in zip(resources, names) {
        let alone = try copy.render(resource).bytes
        let whole = try Data(contentsOf: URL(fileURLWithPath: (folder as NSString).appendingPathComponent(name)))
        guard Data(alone) == whole else { fail("\(resource) rendered alone differs from \(name)") }
        print("StudentCopy: \(resource) (\(ownership == .shared ? "shared" : "the student's own")) = \(name), \(alone.count) bytes")
    }
} catch {
    fail("\(error)")
}
