import Foundation
import Overlay
import TestSupport

/// Pictures people post of a lecture's frame, made with ffmpeg's filters, each shaped by a seeded
/// generator: a screenshot of a player in a browser on a desktop, a phone photo of a screen,
/// a crop around the mark.
struct StillPictures {
    let harness: Harness
    var random: SplitMix64
    static let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    init(harness: Harness, random: SplitMix64) {
        self.harness = harness
        self.random = random
    }

    /// The frame in a player 1000–1500 pixels wide, placed anywhere in a browser window on a
    /// 1920×1080 desktop (tabs, an address bar, the page's heading), the player's controls
    /// (a translucent bar with the progress and the time) over the bottom of the picture, unless
    /// the mark (display pixels) reaches under them: a mark half under a translucent bar is not
    /// read reliably yet (docs/guide/tracing-a-still.md). PNG.
    mutating func screenshot(of frame: String, name: String, at time: Double, mark: PixelRect? = nil) throws -> String {
        let playerWidth = 1000 + random.below(501) / 2 * 2
        let playerHeight = playerWidth * 9 / 16 / 2 * 2
        let x = 70 + random.below(max(1, 1780 - playerWidth)), y = 200 + random.below(max(1, 1030 - playerHeight - 200))
        let played = Int(Double(playerWidth - 32) * time / 30)
        let clock = String(format: "0\\:%02d / 0\\:30", Int(time))
        let desktop = ["drawbox=x=50:y=30:w=1820:h=1020:color=0xFFFFFF:t=fill", "drawbox=x=50:y=30:w=1820:h=44:color=0xDEE1E6:t=fill",
                       "drawbox=x=62:y=38:w=260:h=36:color=0xFFFFFF:t=fill",
                       "drawtext=fontfile=\(Self.font):text='Lecture 3 - Signals':fontsize=16:fontcolor=0x333333:x=80:y=48",
                       "drawbox=x=170:y=84:w=1400:h=32:color=0xF1F3F4:t=fill",
                       "drawtext=fontfile=\(Self.font):text='https\\://learn.example.edu/courses/ee204/lecture-3':fontsize=16:fontcolor=0x202124:x=190:y=92",
                       "drawtext=fontfile=\(Self.font):text='EE 204 Signals and Systems — Lecture 3':fontsize=28:fontcolor=0x202124:x=90:y=140"]
        let controlsTop = Double(StillTraceMedia.height) * Double(playerHeight - 60) / Double(playerHeight)
        let controls = (mark?.maxY).map { Double($0) < controlsTop } ?? true
        let player = ["scale=\(playerWidth):\(playerHeight)"] + (controls ? [
            "drawbox=x=0:y=ih-48:w=iw:h=48:color=black@0.55:t=fill",
            "drawbox=x=16:y=ih-40:w=iw-32:h=4:color=0x888888:t=fill", "drawbox=x=16:y=ih-40:w=\(max(1, played)):h=4:color=red:t=fill",
            "drawtext=fontfile=\(Self.font):text='\(clock)':fontsize=18:fontcolor=white:x=60:y=h-28",
        ] : [])
        try harness.ffmpeg(["-f", "lavfi", "-i", "color=c=0x3A3F47:s=1920x1080", "-i", frame, "-filter_complex",
                            "[0:v]\(desktop.joined(separator: ","))[desk];[1:v]\(player.joined(separator: ","))[player];"
                              + "[desk][player]overlay=x=\(x):y=\(y)", "-frames:v", "1", harness.path(name)])
        return harness.path(name)
    }

    /// The frame on a laptop screen (a dark bezel) photographed at an angle: the screen anywhere
    /// in a 1600×1200 picture of the room, its corners moved by up to 60 pixels (perspective),
    /// softened (Gaussian blur), sensor noise, brighter and flatter, JPEG at quality 60 or less.
    /// Returns the file and its quality as its quantisation table says.
    mutating func phonePhoto(of frame: String, name: String) throws -> (String, Double) {
        let left = 80 + random.below(140), top = 180 + random.below(200)
        func jitter() -> Int { random.below(121) - 60 }
        let corners = [(40 + jitter(), 60 + jitter()), (1560 + jitter(), 40 + jitter()), (60 + jitter(), 1160 + jitter()), (1550 + jitter(), 1170 + jitter())]
        let perspective = corners.enumerated().map { "x\($0.offset)=\($0.element.0):y\($0.offset)=\($0.element.1)" }.joined(separator: ":")
        let quality = 12 + random.below(4)
        try harness.ffmpeg(["-i", frame, "-vf",
                            "pad=1340:780:30:30:color=0x111111,pad=1600:1200:\(left):\(top):color=0x6B5B4B,perspective=\(perspective):sense=destination,"
                              + "gblur=sigma=\(1.0 + Double(random.below(5)) / 10),noise=alls=\(8 + random.below(6)):allf=t,eq=brightness=0.07:contrast=0.9",
                            "-q:v", "\(quality)", harness.path(name)])
        return (harness.path(name), try Self.jpegQuality(harness.path(name)))
    }

    /// About a third of the frame's area around `mark` (display pixels), enlarged 1.4–2×, JPEG.
    mutating func crop(of frame: String, around mark: PixelRect, name: String) throws -> String {
        let width = max(mark.width + 40, 740), height = 420
        let x = min(max(0, mark.x - random.below(max(1, width - mark.width))), StillTraceMedia.width - width)
        let y = min(max(0, mark.y - random.below(max(1, height - mark.height))), StillTraceMedia.height - height)
        let scale = 1.4 + Double(random.below(7)) / 10
        try harness.ffmpeg(["-i", frame, "-vf", "crop=\(width):\(height):\(x):\(y),scale=\(Int(Double(width) * scale) / 2 * 2):-2",
                            "-q:v", "4", harness.path(name)])
        return harness.path(name)
    }

    /// A JPEG's quality (libjpeg's scale), from its first quantisation table against the standard
    /// luminance table (the ratio of their sums is libjpeg's scale factor).
    static func jpegQuality(_ path: String) throws -> Double {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard let marker = (0..<(bytes.count - 70)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDB }) else { return 100 }
        let table = bytes[(marker + 5)..<(marker + 69)].reduce(0) { $0 + Int($1) }
        let standard = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
                        18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101,
                        72, 92, 95, 98, 112, 100, 103, 99].reduce(0, +)
        let scale = 100 * Double(table) / Double(standard)
        return scale <= 100 ? (200 - scale) / 2 : 5000 / scale
    }
}
