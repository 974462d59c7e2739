/// Lets at most `limit` bodies run at once; the others wait their turn, first come first served.
///
/// For parameterized tests whose every case starts something heavy (a database schema and its
/// migrations): Swift Testing starts all the cases at once, and the 286 contract examples then held
/// about 380 of PostgreSQL's connections, ran out of them ("too many clients") and crawled past their
/// time limits on a busy machine. A case waits here, not in PostgreSQL's or the CPU's queue.
public actor TestGate {
    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(limit: Int) { self.limit = limit }

    /// Runs `body` once a slot is free.
    public nonisolated func run<T>(_ body: () async throws -> T) async throws -> T {
        await enter()
        do {
            let value = try await body()
            await leave()
            return value
        } catch {
            await leave()
            throw error
        }
    }

    private func enter() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the slot to the first waiter, or frees it.
    private func leave() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
