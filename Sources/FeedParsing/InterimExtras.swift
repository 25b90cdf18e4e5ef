// INTERIM: replaced when the parser branch lands.
public import Foundation
public enum FeedDate { public static func parse(_ text: String) -> Date? { nil } }
public struct OPMLOutline: Sendable { public var title: String?; public var xmlURL: URL?; public var htmlURL: URL?
    public init(title: String?, xmlURL: URL?, htmlURL: URL?) { self.title = title; self.xmlURL = xmlURL; self.htmlURL = htmlURL } }
public enum OPML {
    public static func parse(_ bytes: [UInt8]) throws -> [OPMLOutline] { [] }
    public static func document(title: String, outlines: [OPMLOutline]) -> String { "" }
}
extension ParsedFeed { public func jsonDocument() -> String { "" } }
