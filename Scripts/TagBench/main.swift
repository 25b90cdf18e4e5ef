import EpisodeDownloads
import Foundation

// Tags one file in place with MediaTagger, as a download does after verifying it, and prints how long each round took
// (Scripts/bench-tags.sh runs it under /usr/bin/time for the peak memory). Not part of the product.
//
//   podfresh-tag-bench FILE COVER [ROUNDS]

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: podfresh-tag-bench FILE COVER [ROUNDS]\n".utf8))
    exit(64)
}
let file = URL(fileURLWithPath: arguments[1])
let cover = Artwork(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: arguments[2]))))
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
let tags = EpisodeTags(
    title: "Benchmark episode", album: "Benchmark show", artist: "Bench Host", track: 7, disc: 1,
    date: Date(timeIntervalSince1970: 1_765_083_600),
    description: String(repeating: "Show notes as plain text. ", count: 150), link: "https://bench.example/ep7",
    guid: "bench-ep-7", image: cover)
for round in 1...rounds {
    let start = ContinuousClock.now
    let result = try MediaTagger.tag(file, with: tags, merge: round % 2 == 0)
    let elapsed = start.duration(to: .now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("round \(round): \(result) in \(String(format: "%.3f", seconds)) s")
}
