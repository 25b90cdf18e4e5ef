// libFuzzer entry point for the date and duration parsers, compiled into the FeedParsing module by Scripts/fuzz.sh.
// Besides finite results, it checks that the byte-level fast paths agree with the general parsers whenever they answer.

public import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    let date = FeedDate.parse(text)
    if let date {
        precondition(date.timeIntervalSince1970.isFinite, "non-finite date from \(text.debugDescription)")
    }
    let seconds = EpisodeDuration.parse(text)
    if let seconds {
        precondition(seconds.isFinite && seconds >= 0, "bad duration \(seconds) from \(text.debugDescription)")
    }
    // The parser hands the fast paths valid UTF-8 trimmed of ASCII whitespace; the general parsers get the same text.
    let trimmed = text.trimmedText
    if trimmed == text {
        let utf8 = Array(text.utf8)
        if let quick = utf8.withUnsafeBufferPointer(FeedDate.parseCommon) {
            precondition(quick == date, "fast date \(quick) ≠ \(String(describing: date)) for \(text.debugDescription)")
        }
        if let quick = utf8.withUnsafeBufferPointer(EpisodeDuration.parseClock) {
            precondition(
                quick == seconds, "fast duration \(quick) ≠ \(String(describing: seconds)) for \(text.debugDescription)"
            )
        }
    }
    return 0
}
