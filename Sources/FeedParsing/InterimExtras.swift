// INTERIM: replaced when the parser branch lands.
public import Foundation
public enum FeedDate { public static func parse(_ text: String) -> Date? { nil } }
extension ParsedFeed { public func jsonDocument() -> String { "" } }
