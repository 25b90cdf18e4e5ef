import Foundation

/// Where the database lives.
public enum DatabaseLocation {
    /// `--database` > `$PODFRESH_DATABASE` > `$XDG_DATA_HOME/podfresh/podfresh.sqlite` >
    /// `$HOME/.local/share/podfresh/podfresh.sqlite`.
    public static func resolve(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return (explicit as NSString).expandingTildeInPath }
        if let fromEnvironment = environment["PODFRESH_DATABASE"], !fromEnvironment.isEmpty {
            return (fromEnvironment as NSString).expandingTildeInPath
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/podfresh/podfresh.sqlite"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/podfresh/podfresh.sqlite"
    }
}
