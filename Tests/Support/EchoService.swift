import Bus
import Contracts
import Envelope
import Foundation
import ServiceKit

extension ServiceDefinition {
    /// The `echo` fixture service, as `echo-worker` runs it.
    public static let echo = ServiceDefinition(
        contract: Echo.self, schema: nil, settings: [], deployment: ServiceDeployment(about: "a test fixture: repeats, fails and sleeps on request")
    ) { _ in
        ServiceParts(handlers: EchoService.handlers())
    }
}

/// The handlers of the `echo` fixture service.
public enum EchoService {
    static func handlers() -> OperationHandlers {
        var handlers = OperationHandlers(Echo.self, database: nil)
        handlers.on(Echo.Message.Repeat.self, repeatMessage)
        return handlers
    }

    /// The operations of `echo`, ready for a `WorkerRuntime` or a contract test.
    public static func registry() -> OperationRegistry {
        handlers().finished()
    }

    /// `<host>:<pid>` of this process.
    public static let workerName = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"

    @Sendable
    static func repeatMessage(_ request: Echo.Message.Repeat.Request, _ context: RequestContext) async throws -> Echo.Message.Repeat.Response {
        // Counted in Unicode scalars, as JSON Schema's maxLength counts, so the gateway's document and
        // this check agree.
        guard Echo.Message.Repeat.Request.textLength.contains(request.text.unicodeScalars.count) else {
            throw OperationError.invalid(field: "data.text", "must be 1 to 65,536 characters")
        }
        if let busy = request.busyMilliseconds {
            guard (0...60_000).contains(busy) else { throw OperationError.invalid(field: "data.busyMilliseconds", "must be 0 to 60,000") }
            usleep(useconds_t(busy) * 1000)
        }
        if let delay = request.delayMilliseconds {
            guard (0...60_000).contains(delay) else {
                throw OperationError.invalid(field: "data.delayMilliseconds", "must be 0 to 60,000")
            }
            try await Task.sleep(for: .milliseconds(delay))
        }
        if let code = request.fail {
            throw OperationError(code, "failed on request, as asked")
        }
        return .init(text: request.text, worker: workerName)
    }
}
