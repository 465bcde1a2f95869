import Foundation

// Everything lives in `CommandLineTool`; this file only hands over the arguments.
exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
