/// Where warnings go (stderr in the command line, a list in tests).
public typealias WarningHandler = @Sendable (String) -> Void
