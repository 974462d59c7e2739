import CZeroMQ
import Foundation

/// A failed libzmq call: the operation, the errno it left and where it was called from.
public struct ZMQError: Error, CustomStringConvertible, Sendable {
    /// The libzmq function or wrapper operation that failed.
    public let operation: String
    /// The errno value libzmq reported (`zmq_errno()`).
    public let errno: Int32
    public let file: String
    public let line: Int

    /// Captures `zmq_errno()` for the call that just failed.
    public init(_ operation: String, errno: Int32 = zmq_errno(), file: String = #fileID, line: Int = #line) {
        self.operation = operation
        self.errno = errno
        self.file = file
        self.line = line
    }

    /// libzmq's text for the errno.
    public var message: String { String(cString: zmq_strerror(errno)) }

    /// True when the call would have blocked (`EAGAIN`).
    public var wouldBlock: Bool { errno == EAGAIN }

    /// True when the context or socket is being shut down (`ETERM`).
    public var isTerminated: Bool { errno == ETERM }

    public var description: String { "\(operation) failed: \(message) (errno \(errno)) at \(file):\(line)" }
}
