/// A parsed Prometheus text exposition (format 0.0.4): the samples, ignoring `# HELP` and `# TYPE` lines.
///
/// Small and strict on purpose: a line it cannot read is a test failure (``PrometheusText/Problem``), never skipped.
public struct PrometheusText: Sendable {
    /// One sample line: `name{label="value",…} 12.5`.
    public struct Sample: Sendable, Hashable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    /// A line that is not a sample, a comment or empty.
    public struct Problem: Error, CustomStringConvertible {
        public var line: String
        public var description: String { "not a Prometheus sample line: \(line)" }
    }

    public let samples: [Sample]
    /// The `# TYPE` of each metric family, by name.
    public let types: [String: String]

    /// Parses `text`.
    ///
    /// - Throws: ``Problem`` for a line that cannot be read.
    public init(_ text: String) throws {
        var samples: [Sample] = []
        var types: [String: String] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# TYPE ") {
                let words = line.split(separator: " ")
                if words.count == 4 { types[String(words[2])] = String(words[3]) }
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let sample = Self.sample(Substring(line)) else { throw Problem(line: String(line)) }
            samples.append(sample)
        }
        self.samples = samples
        self.types = types
    }

    /// The value of the sample `name` whose labels include `labels`, or nil when there is none (or several).
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { sample in
            sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }
        return matching.count == 1 ? matching[0].value : nil
    }

    /// The cumulative count of histogram `name` in the bucket whose upper bound is `upperBound` (the `le` label read
    /// as a number, so `5` and `5.0` are one bucket).
    public func bucket(_ name: String, upperBound: Double) -> Double? {
        let matching = samples.filter {
            $0.name == name + "_bucket" && $0.labels["le"].flatMap(Double.init) == upperBound
        }
        return matching.count == 1 ? matching[0].value : nil
    }

    /// The sum of every sample named `name`, whatever its labels.
    public func total(_ name: String) -> Double {
        samples.filter { $0.name == name }.reduce(0) { $0 + $1.value }
    }

    private static func sample(_ line: Substring) -> Sample? {
        var rest = line[...]
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard !name.isEmpty else { return nil }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let key = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                guard !key.isEmpty else { return nil }
                rest = rest.dropFirst(key.count)
                guard rest.hasPrefix("=\"") else { return nil }
                rest = rest.dropFirst(2)
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\" {
                        guard let escaped = rest.first else { return nil }
                        rest = rest.dropFirst()
                        value.append(escaped == "n" ? "\n" : escaped)
                    } else {
                        value.append(character)
                    }
                }
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                labels[String(key)] = value
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { return nil }
        let fields = rest.split(separator: " ")
        guard fields.count == 1 || fields.count == 2 else { return nil }  // value, and an optional timestamp
        let value: Double?
        switch fields[0] {
        case "+Inf": value = .infinity
        case "-Inf": value = -.infinity
        case "NaN": value = .nan
        default: value = Double(fields[0])
        }
        guard let value else { return nil }
        return Sample(name: String(name), labels: labels, value: value)
    }
}
