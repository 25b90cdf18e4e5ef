/// Runs `body` with `resource` and awaits `close` on it before returning, whether `body` throws or not: the one scoped
/// form of the tests' servers, networks and harnesses (a `defer { Task { … } }` would not be awaited). When `body`
/// throws, its error wins over one from `close`.
public func withClosing<Resource, R>(
    _ resource: Resource, close: (Resource) async throws -> Void, _ body: (Resource) async throws -> R
) async throws -> R {
    let result: R
    do {
        result = try await body(resource)
    } catch {
        try? await close(resource)
        throw error
    }
    try await close(resource)
    return result
}
