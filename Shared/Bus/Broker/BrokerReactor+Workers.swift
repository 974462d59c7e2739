import Envelope
import ZeroMQ

extension BrokerReactor {
    /// A worker command: `[address, "", "MDPW01", command, ...]`.
    func handleWorker(_ address: Frame, _ frames: [Frame], from member: BusMember?) {
        guard let message = MDP.parseWorker(frames[1...]) else {
            rejectPeer(address, reason: "a malformed worker command")
            return
        }
        let now = clock.now
        let known = workers[address] != nil
        if known { workers[address]?.expiry = now + configuration.heartbeat.expiry }
        switch message.command {
        case .ready:
            let arguments = message.arguments
            guard !known, (1...2).contains(arguments.count), let name = Self.serviceName(arguments[0]), !name.hasPrefix("mmi."),
                let capacity = arguments.count == 1 ? 1 : MDP.capacity(arguments[1])
            else {
                rejectPeer(address, reason: "an unexpected or malformed READY")
                return
            }
            guard mayServe(member, name) else {
                send([address] + MDP.disconnect)
                return
            }
            // At the cap, a service that no worker serves (a name clients invented, say) makes room:
            // requests cannot lock real workers out.
            guard services[name] != nil || services.count < Self.maxServices || evictServiceWithoutWorkers() else {
                rejectPeer(address, reason: "a READY for a new service beyond the broker's \(Self.maxServices), all of them served")
                return
            }
            let service = serviceState(name)
            workers[address] = WorkerState(service: service, capacity: capacity, expiry: now + configuration.heartbeat.expiry, lastSent: now)
            service.workerCount += 1
            service.metrics.workers.record(service.workerCount)
            service.ready.append(address)
            logger.debug("worker ready", metadata: ["service": "\(name)"])
            dispatch(service)
        case .reply:
            let arguments = message.arguments
            guard arguments.count >= 3, arguments[1].isEmpty, let wasFull = workers[address].map({ !$0.hasRoom }),
                let job = workers[address]!.jobs.removeValue(forKey: arguments[0])
            else {
                rejectPeer(address, reason: "a REPLY from a worker that holds no such request")
                return
            }
            let service = workers[address]!.service
            send([job.client] + MDP.clientReply(service: service.nameFrame, body: Array(arguments[2...])))
            service.metrics.replies.increment()
            if wasFull { service.ready.append(address) }
            dispatch(service)
        case .heartbeat:
            if !known { rejectPeer(address, reason: "a HEARTBEAT from an unknown worker") }
        case .disconnect:
            // A worker leaves with DISCONNECT only when it is not working on a request (a draining
            // worker does not start one it receives): that hand-over is not a failed dispatch.
            if known { deleteWorker(address, notify: false, workedOnJob: false) }
        case .request:
            rejectPeer(address, reason: "a REQUEST sent by a worker")
        }
    }

    /// Removes a worker; the requests it held go back to the front of their service's queue, each
    /// counted as a failed dispatch unless the worker left without working on them.
    func deleteWorker(_ address: Frame, notify: Bool, workedOnJob: Bool = true) {
        guard let worker = workers.removeValue(forKey: address) else { return }
        if notify { send([address] + MDP.disconnect) }
        let service = worker.service
        service.workerCount -= 1
        service.metrics.workers.record(service.workerCount)
        if let index = service.ready.firstIndex(of: address) { service.ready.remove(at: index) }
        for var job in worker.jobs.values {
            if !workedOnJob { job.dispatches -= 1 }
            if job.dispatches >= configuration.maxDispatches {
                let error = OperationError(.unavailable, "the request was handed to \(job.dispatches) workers of the \(service.name) service and none of them answered")
                replyError(job, service: service, error)
            } else {
                BrokerMetrics.redispatches.increment()
                service.queue.prepend(job)
            }
        }
        dispatch(service)
    }

    /// Expires silent workers, sends heartbeats to those the broker has not written to lately, and
    /// forgets services that have had no worker and no queued request for the retention.
    func heartbeat(now: ContinuousClock.Instant) {
        let expired = workers.filter { $0.value.expiry <= now }.map(\.key)
        for address in expired {
            logger.info("worker expired", metadata: ["service": "\(workers[address]!.service.name)"])
            deleteWorker(address, notify: true)
        }
        for (address, worker) in workers where worker.lastSent.duration(to: now) >= configuration.heartbeat.interval {
            send([address] + MDP.heartbeat)
            workers[address]?.lastSent = now
        }
        forgetUnusedServices(now: now)
    }

    /// Forgets one service that has no worker, answering what waits for it `unavailable` (the
    /// longest-unused first); false when every service has a worker.
    private func evictServiceWithoutWorkers() -> Bool {
        let candidates = services.values.filter { $0.workerCount == 0 }
        guard let service = candidates.min(by: { ($0.unusedSince ?? .now, $0.queue.count) < ($1.unusedSince ?? .now, $1.queue.count) }) else {
            return false
        }
        while let job = service.queue.popFirst() {
            replyError(job, service: service, OperationError(.unavailable, "no worker of the \(service.name) service is available"))
        }
        forget(service.name)
        return true
    }

    private func forget(_ name: String) {
        services.removeValue(forKey: name)?.metrics.destroy()
    }

    private func forgetUnusedServices(now: ContinuousClock.Instant) {
        var forgotten: [String] = []
        for (name, service) in services {
            guard service.workerCount == 0, service.queue.isEmpty else {
                service.unusedSince = nil
                continue
            }
            let since = service.unusedSince ?? now
            service.unusedSince = since
            if since.duration(to: now) >= configuration.serviceRetention { forgotten.append(name) }
        }
        for name in forgotten { forget(name) }
        if !forgotten.isEmpty { logger.debug("services forgotten", metadata: ["count": "\(forgotten.count)"]) }
    }

    /// A service name as sent in READY: 1 to 128 visible ASCII characters.
    static func serviceName(_ frame: Frame) -> String? {
        guard (1...128).contains(frame.count), frame.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return String(decoding: frame, as: UTF8.self)
    }
}
