import Foundation

extension URL {
    /// Whether it is fetched over the network (http or https), not read from a file.
    var isHTTP: Bool { ["http", "https"].contains(scheme?.lowercased() ?? "") }
}
