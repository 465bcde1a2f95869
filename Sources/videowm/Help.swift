/// The text of `videowm help`: the overview, each command's page (made from its declaration,
/// see `ToolCommand`) and the config fields.
enum Help {
    static var commandNames: [String] { CommandLineTool.commands.map { $0.name } }

    static var overview: String {
        let usage = CommandLineTool.commands.map { indented($0.help.usage) }
        return """
        videowm — burn visible watermarks (text and logos, still or moving) into video and stills

        Usage:
        \(usage.joined(separator: "\n"))
          videowm help [COMMAND] | videowm COMMAND --help | videowm --version

        Config: a JSON file with a "watermarks" array; every length is a fraction of the
        frame's short side, so one config looks the same on every frame size.
        Run 'videowm help config' for the fields.

        Exit codes: 0 ok · 64 usage or config error · 65 input unreadable or corrupt ·
        66 input missing · 71 out of memory or other resources · 73 output cannot be created ·
        74 write error · 130 interrupted.

        """
    }

    /// A command's page, or the config fields; nil for anything else.
    static func text(for topic: String) -> String? {
        if topic == "config" { return config }
        return CommandLineTool.command(named: topic)?.helpPage
    }

    /// Every line two spaces in, as the overview lists usages.
    private static func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    }

    static let config = """
    Config fields (one object per layer in "watermarks"; layers draw in order):
      text        text; {name} placeholders from --var; {{ and }} are literal braces
      image       logo path (relative to the config) or http(s) URL; PNG/JPEG/WebP
      size        text: cap height; image: longer side (fraction of the short side)
                  default 0.04 (text), 0.16 (image)
      font        family name (fontconfig) or font file; default DejaVu Sans
      color       #RGB, #RRGGBB, #AARRGGBB or an ARGB integer; default #FFFFFFFF
      opacity     0…1; default 0.3 (text), 1.0 (image)
      x, y        0…100 percent inside the inset; default 0,0 (text), 92,88 (image)
      anchor      top-left top top-right left center right bottom-left bottom bottom-right
      inset       safe margin, fraction of the short side; default 0.03
      maxWidth    text wider than this fraction of the frame width shrinks; default 0.9
      outline     {"width": f, "color": c}
      shadow      {"x": f, "y": f, "blur": f, "color": c}
      box         {"color": c, "padding": f, "radius": f}
      tile        {"angle": degrees, "spacing": f}: repeat over the whole frame with
                  this gap between marks (fraction of the short side), as given; a
                  warning gives the size of any clean square wider than 0.1; default
                  spacing 0.12
      animation   {"type": "pingPong"|"random", "duration": ms, "seed": s, "ease": ms}
      start, end  seconds of presentation time the layer shows
      interval, skip   ms shown, then ms hidden, repeating
      fade        ms of fade in and out at every appearance
      unless      {"plan": ["premium"]}: leave the layer out for these variable values
    TPStreams player configs (textSize, imageUrl, width, height in points) are accepted.

    """
}
