import Foundation
import PackagePlugin

/// Names the git commit a build of the executable comes from, so `podfresh --version` says it after a plain
/// `swift build` in a git checkout too (issue #37).
///
/// Before every build it runs `Plugins/GitCommitStamp/stamp.sh`, which writes `GitCommit.swift` into the plugin's
/// work directory (`enum GitCheckout { static let commit: String? = "3afec98c1d2e" }`, with `-dirty` when tracked
/// files changed since that commit, or `nil` outside a git checkout: a tarball). The file is rewritten only when its
/// text changes, so an unchanged checkout recompiles nothing. `Scripts/package.sh`'s stamp, when present, still wins.
@main
struct GitCommitStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "GitCommit")
        let script = context.package.directoryURL.appending(path: "Plugins/GitCommitStamp/stamp.sh")
        return [
            .prebuildCommand(
                displayName: "Naming the git commit for --version",
                executable: URL(filePath: "/bin/sh"),
                arguments: [script.path, context.package.directoryURL.path, output.path],
                outputFilesDirectory: output)
        ]
    }
}
