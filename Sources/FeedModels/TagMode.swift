/// Whether, and how, a feed's downloaded files are tagged (`podfresh set FEED --tags on|off|merge`): stored by its raw
/// value.
public enum TagMode: String, Sendable, Hashable, CaseIterable {
    /// Files are left as the host wrote them.
    case off
    /// The episode's tags replace whatever tags the host wrote at the front of the file.
    case on
    /// The episode's tags replace only the same fields; the host's other tags (its chapters, say) stay.
    case merge
}
