import Foundation

/// A process started by a test: one of the package's executables or a Python peer. Its output goes
/// to a log file whose path failures print; it is killed when the value is released.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `process` is a Foundation Process, used only through its thread-safe calls
    // (isRunning, processIdentifier, terminate, waitUntilExit), never reconfigured after launch.
    private let process: Process
    public let name: String
    /// Where standard output and error go.
    public let logPath: String

    /// Starts `executable` with `arguments`, adding `environment` to the test's own.
    public init(executable: String, arguments: [String] = [], environment: [String: String] = [:], name: String? = nil) throws {
        self.name = name ?? URL(fileURLWithPath: executable).lastPathComponent
        logPath = NSTemporaryDirectory() + "melon-\(self.name)-\(UUID().uuidString.prefix(8)).log"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    /// Starts one of this package's executables (`broker`, `echo-worker`, ...) from the build folder.
    public convenience init(product: String, environment: [String: String] = [:], name: String? = nil) throws {
        try self.init(executable: BuildProducts.path(product), environment: environment, name: name ?? product)
    }

    deinit { kill() }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// SIGKILL: no chance to clean up, as when a machine dies.
    public func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    @discardableResult
    public func terminate() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Sends SIGTERM and returns at once (the process drains and exits on its own).
    public func signalTerminate() {
        if process.isRunning { process.terminate() }
    }

    /// Waits for the process to end by itself, up to `timeout`; returns its status, or nil if it is still running.
    public func wait(timeout: Duration) async -> Int32? {
        let end = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(20)) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// What the process has written so far.
    public var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}

/// Where this package's built executables are: beside the running test bundle.
public enum BuildProducts {
    public static func path(_ product: String) -> String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        // Swift Testing on Linux runs `<build>/<config>/melonPackageTests.xctest`; products sit beside it.
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(product).path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent(product).path
    }

    /// The package's root folder (for test data kept in the repository, such as the Python peers).
    public static func packageRoot(file: String = #filePath) -> URL {
        var directory = URL(fileURLWithPath: file).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory
    }
}
