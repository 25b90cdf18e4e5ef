import Foundation
public import NIOSSL

/// A certificate and key for `localhost` and `127.0.0.1`, valid for a day, signed by nobody but itself: made with
/// `openssl` for a test's TLS server. A client refuses it unless told to trust ``pem``.
public struct TestCertificate: Sendable {
    /// The certificate, as PEM text (what a client is told to trust).
    public let pem: String
    /// The certificate.
    public let certificate: NIOSSLCertificate
    /// Its private key.
    public let key: NIOSSLPrivateKey

    /// Makes a new certificate and key.
    ///
    /// - Throws: ``TestTLSServerError`` when `openssl` fails, or NIOSSL's error reading what it wrote.
    public static func make() throws -> TestCertificate {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "podfresh-tls-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestTLSServerError(
                message: "openssl could not make a certificate (status \(process.terminationStatus))"
            )
        }
        let pem = try String(contentsOfFile: certificate, encoding: .utf8)
        guard let loaded = try NIOSSLCertificate.fromPEMFile(certificate).first else {
            throw TestTLSServerError(message: "openssl wrote no certificate")
        }
        return TestCertificate(pem: pem, certificate: loaded, key: try NIOSSLPrivateKey(file: key, format: .pem))
    }
}
