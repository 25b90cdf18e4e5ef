// libFuzzer entry point for the date and duration parsers, compiled into the FeedParsing module by Scripts/fuzz.sh.

public import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let date = FeedDate.parse(text) {
        precondition(date.timeIntervalSince1970.isFinite, "non-finite date from \(text.debugDescription)")
    }
    if let seconds = EpisodeDuration.parse(text) {
        precondition(seconds.isFinite && seconds >= 0, "bad duration \(seconds) from \(text.debugDescription)")
    }
    return 0
}
