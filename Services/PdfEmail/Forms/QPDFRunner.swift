import CQPDF
import Foundation

/// Runs qpdf jobs in process through its C job API: each call is what `qpdf ARGUMENTS` does on the
/// command line, with qpdf's messages captured instead of written to the process's output.
/// Blocking: call it off the cooperative threads.
enum QPDFRunner {
    struct Failed: Error, CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        let messages: String
        var description: String { "qpdf \(arguments.joined(separator: " ")) exited \(status): \(messages)" }
    }

    /// What a job wrote: its output (JSON, for `--json`) and its warnings.
    struct Result {
        var output: String
        var warnings: String
    }

    /// Runs `qpdf arguments`; warnings (exit 3) are not failures, errors (exit 2) are. Only for
    /// arguments of our own: a value from a request goes through `run(job:)`, where no value can be
    /// read as an option.
    static func run(_ arguments: [String]) throws -> Result {
        let argv = (["qpdf"] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = argv.map { UnsafePointer($0) } + [nil]
        return try execute(description: arguments) { qpdfjob_initialize_from_argv($0, &pointers) }
    }

    /// Runs a job given as qpdf's job JSON (`qpdf --job-json-help`): every value is data.
    static func run(job: [String: Any]) throws -> Result {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: job), as: UTF8.self)
        return try execute(description: ["--job-json"]) { job in json.withCString { qpdfjob_initialize_from_json(job, $0) } }
    }

    /// Where a logger stream's bytes go.
    private final class Buffer {
        var data = Data()
    }

    /// Appends a logger stream's bytes to the `Buffer` its context points at.
    private static let append: qpdf_log_fn_t = { data, length, buffer in
        Unmanaged<Buffer>.fromOpaque(buffer!).takeUnretainedValue().data.append(UnsafeRawPointer(data!).assumingMemoryBound(to: UInt8.self), count: length)
        return 0
    }

    private static func execute(description arguments: [String], _ initialize: (qpdfjob_handle?) -> Int32) throws -> Result {
        let output = Unmanaged.passRetained(Buffer()), warnings = Unmanaged.passRetained(Buffer())
        defer { output.release(); warnings.release() }
        var logger = qpdflogger_create()
        defer { qpdflogger_cleanup(&logger) }
        // Messages to info; JSON (and any output written to "-") to the save stream; both are output.
        qpdflogger_set_info(logger, qpdf_log_dest_custom, append, output.toOpaque())
        qpdflogger_set_save(logger, qpdf_log_dest_custom, append, output.toOpaque(), 0)
        qpdflogger_set_warn(logger, qpdf_log_dest_custom, append, warnings.toOpaque())
        qpdflogger_set_error(logger, qpdf_log_dest_custom, append, warnings.toOpaque())
        var job = qpdfjob_init()
        defer { qpdfjob_cleanup(&job) }
        qpdfjob_set_logger(job, logger)
        var status = initialize(job)
        if status == 0 { status = qpdfjob_run(job) }
        let messages = String(decoding: warnings.takeUnretainedValue().data, as: UTF8.self)
        guard status == 0 || status == 3 else { throw Failed(arguments: arguments, status: status, messages: messages) }
        return Result(output: String(decoding: output.takeUnretainedValue().data, as: UTF8.self), warnings: messages)
    }
}
