// podfresh-parse-bench: FeedParser throughput over a list of files, measured like ../shared/bench/sax_floor.c's push
// mode (64 KiB read() chunks from one reused buffer fed to the push parser; reads inside the timed region).
//
//   podfresh-parse-bench [-r REPS] -l LISTFILE | FILE...
//
// Prints: files, bytes, episodes, warnings, failures, seconds, MB/s and ms per feed for the fastest repetition.
import FeedParsing
import Foundation

var arguments = Array(CommandLine.arguments.dropFirst())
var repetitions = 3
var files: [String] = []
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "-r": repetitions = Int(arguments.removeFirst()) ?? 3
    case "-l":
        let list = try String(contentsOfFile: arguments.removeFirst(), encoding: .utf8)
        files += list.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    default: files.append(argument)
    }
}
guard !files.isEmpty else {
    FileHandle.standardError.write(Data("usage: podfresh-parse-bench [-r REPS] -l LISTFILE | FILE...\n".utf8))
    exit(64)
}

let chunkSize = 64 * 1024
let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
var best = Double.infinity
var bytes = 0
var episodes = 0
var warnings = 0
var failures = 0
for _ in 0..<max(1, repetitions) {
    bytes = 0
    episodes = 0
    warnings = 0
    failures = 0
    let start = ContinuousClock.now
    for path in files {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { fatalError("cannot open \(path)") }
        let parser = FeedParser(baseURL: URL(fileURLWithPath: path))
        do {
            while true {
                let count = read(fd, buffer.baseAddress, chunkSize)
                if count <= 0 { break }
                bytes += count
                try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
            let feed = try parser.finish()
            episodes += feed.episodes.count
            warnings += feed.warnings.count
        } catch {
            failures += 1
        }
        close(fd)
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    best = min(best, seconds)
}
let megabytesPerSecond = Double(bytes) / 1e6 / best
print(
    String(
        format:
            "mode=podfresh files=%d bytes=%d episodes=%d warnings=%d failures=%d parse_s=%.3f MB/s=%.1f ms/feed=%.3f",
        files.count, bytes, episodes, warnings, failures, best, megabytesPerSecond, best * 1000 / Double(files.count)))
