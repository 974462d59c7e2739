import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A process started by a test: one of the package's executables or a Python peer. Its output goes
/// to a log file whose path failures print; it is killed when the value is released.
///
/// Started with posix_spawn and reaped by a thread of its own blocked in waitpid, not through
/// Foundation's Process: on Linux that one notices an exit through a socket the child inherits (a
/// child's own children or a sibling spawned at the same moment keep it open; swift-corelibs-foundation
/// issue 4795) and children spawned from a Dispatch thread inherit its blocked signals (issue 4772).
/// Either can leave a waitUntilExit blocked for ever on one of the two cooperative threads.
public final class ChildProcess: Sendable {
    public let name: String
    /// Where standard output and error go.
    public let logPath: String
    public let pid: pid_t
    private let exit = ExitStatus()

    /// Starts `executable` with `arguments`, adding `environment` to the test's own.
    public init(executable: String, arguments: [String] = [], environment: [String: String] = [:], name: String? = nil) throws {
        self.name = name ?? URL(fileURLWithPath: executable).lastPathComponent
        logPath = NSTemporaryDirectory() + "melon-\(self.name)-\(UUID().uuidString.prefix(8)).log"
        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }.map { "\($0.key)=\($0.value)" }
        pid = try Spawn.start(executable, arguments: [executable] + arguments, environment: variables, output: logPath)
        let (pid, exit) = (pid, exit)
        let reaper = Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            // Exited: its code; killed by a signal: 128 + the signal, as shells report it.
            exit.set(status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + status & 0x7f)
        }
        reaper.name = "reap-\(pid)"
        reaper.stackSize = 1 << 16
        reaper.start()
    }

    /// Starts one of this package's executables (`broker`, `echo-worker`, ...) from the build folder.
    /// Its bus runs in the clear (`BUS_CURVE=off`) unless `environment` sets BUS_CURVE: most tests are
    /// about other things and share an in-process broker; the CurveZMQ tests give every process keys.
    public convenience init(product: String, environment: [String: String] = [:], name: String? = nil) throws {
        try self.init(executable: BuildProducts.path(product), environment: ["BUS_CURVE": "off"].merging(environment) { $1 }, name: name ?? product)
    }

    deinit { kill() }

    public var isRunning: Bool { exit.status == nil }

    /// SIGKILL: no chance to clean up, as when a machine dies. Returns once the process is gone.
    public func kill() {
        guard isRunning else { return }
        Glibc.kill(pid, SIGKILL)
        exit.wait()
    }

    /// SIGTERM, then waits up to `grace` for the exit and returns its status; a process still running
    /// then is killed, and the status says so (137).
    @discardableResult
    public func terminate(grace: Duration = .seconds(30)) async -> Int32 {
        signalTerminate()
        if let status = await wait(timeout: grace) { return status }
        kill()
        return exit.status ?? 137
    }

    /// Sends SIGTERM and returns at once (the process drains and exits on its own).
    public func signalTerminate() {
        if isRunning { Glibc.kill(pid, SIGTERM) }
    }

    /// Waits for the process to end by itself, up to `timeout`; returns its status, or nil if it is
    /// still running then or the waiting task is cancelled.
    public func wait(timeout: Duration) async -> Int32? {
        let end = ContinuousClock.now + timeout
        while exit.status == nil, ContinuousClock.now < end {
            do { try await Task.sleep(for: .milliseconds(20)) } catch { break }
        }
        return exit.status
    }

    /// What the process has written so far.
    public var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}

/// The exit status, set once by the reaping thread.
private final class ExitStatus: @unchecked Sendable {
    // @unchecked: `value` is read and written only under `condition`'s lock.
    private let condition = NSCondition()
    private var value: Int32?

    var status: Int32? {
        condition.lock()
        defer { condition.unlock() }
        return value
    }

    func set(_ status: Int32) {
        condition.lock()
        value = status
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks the calling thread until the status is set (after a SIGKILL, a moment).
    func wait() {
        condition.lock()
        while value == nil { condition.wait() }
        condition.unlock()
    }
}

private enum Spawn {
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// posix_spawn with standard input from /dev/null, output and errors appended to `output`, no other
    /// descriptor of ours (NIO's sockets are not close-on-exec: a child holding a copy of the tests'
    /// database connections kept them open on the server after the tests closed them), default signal
    /// handling and nothing blocked.
    static func start(_ path: String, arguments: [String], environment: [String], output: String) throws -> pid_t {
        let log = open(output, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw Failed(description: "cannot open \(output): errno \(errno)") }
        defer { close(log) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, log, 1)
        posix_spawn_file_actions_adddup2(&actions, log, 2)
        guard closeFrom(&actions, 3) == 0 else { throw Failed(description: "posix_spawn_file_actions_addclosefrom_np failed") }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Failed(description: "cannot start \(path): \(String(cString: strerror(result)))") }
        return pid
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later), which the Glibc module does
    /// not import, looked up by name.
    private static let closeFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            fatalError("glibc 2.34 or later is needed: posix_spawn_file_actions_addclosefrom_np is missing")
        }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
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
