/// Plain text from a feed's HTML, for places outside the parser that need it (tags written into media files).
public enum PlainText {
    /// `html` with its tags removed, common entities decoded and whitespace collapsed, cut at about `limit`
    /// characters at a word boundary (with "…").
    public static func from(html: String, limit: Int) -> String {
        TextCleaning.plainSummary(html, limit: limit)
    }
}
