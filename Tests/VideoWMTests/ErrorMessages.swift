/// The one line the command line prints for an error (its description), as the tests read it.
extension Error {
    var message: String { String(describing: self) }
}
