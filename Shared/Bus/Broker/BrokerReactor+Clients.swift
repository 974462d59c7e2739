import Envelope
import Foundation
import ZeroMQ

extension BrokerReactor {
    private static let peekKeys: [StaticString] = ["id", "type", "expirytime"]
    /// The envelope members that speak for a signed-in user or a client: only the gateway's requests
    /// may carry them (checked with CURVE on).
    private static let callerKeys: Set<String> = ["authtype", "authid", "authclaims", "clientip"]
    /// Distinct service names the broker tracks; requests naming more are refused, so a client
    /// inventing names cannot grow the broker's memory or metrics without bound.
    static let maxServices = 1024

    /// A client request: `service, body...` after the header.
    func handleClient(_ address: Frame, _ rest: ArraySlice<Frame>, from member: BusMember?) {
        guard rest.count >= 2, !rest[rest.startIndex].isEmpty else {
            let reply = OperationError(.invalid, "a client request needs a service name frame and a body frame")
            replyError(to: address, serviceFrame: rest.first ?? [], id: nil, type: nil, reply)
            return
        }
        let serviceFrame = rest[rest.startIndex]
        let body = Array(rest.dropFirst())
        guard let name = Self.serviceName(serviceFrame) else {
            let reply = OperationError.invalid(field: "service", "must be 1 to 128 visible ASCII characters")
            replyError(to: address, serviceFrame: serviceFrame, id: nil, type: nil, reply)
            return
        }
        if name.hasPrefix("mmi.") {
            answerMMI(address, serviceFrame: serviceFrame, name: name, body: body)
            return
        }
        // One scan of the body serves the peek and, with CURVE on, the caller check.
        let object = body.count == 1 ? JSONPeek.Object(body[0]) : nil
        let peek = object?.strings(Self.peekKeys)
        let id = peek?[0], type = peek?[1]
        if let refusal = refusal(of: member, service: name, type: type, speaksForUser: access != nil && body.count == 1 && object?.hasAny(Self.callerKeys) != false) {
            replyError(to: address, serviceFrame: serviceFrame, id: id, type: type, refusal)
            return
        }
        let size = body.reduce(0) { $0 + $1.count }
        guard size <= configuration.maxMessageBytes else {
            let error = OperationError(.tooLarge, "the request is \(size) bytes; the limit is \(configuration.maxMessageBytes)")
            replyError(to: address, serviceFrame: serviceFrame, id: id, type: type, error)
            return
        }
        let now = clock.now
        var deadline = now + configuration.defaultDeadline
        if let expiry = peek?[2].flatMap(RFC3339.date(from:)) {
            deadline = now + .milliseconds(Int64((expiry.timeIntervalSinceNow * 1000).rounded(.down)))
        }
        guard services[name] != nil || services.count < Self.maxServices else {
            let error = OperationError(.unavailable, "no worker of the \(name) service is available")
            replyError(to: address, serviceFrame: serviceFrame, id: id, type: type, error)
            return
        }
        let service = serviceState(name)
        service.metrics.requests.increment()
        let job = Job(client: address, body: body, id: id, type: type, deadline: deadline)
        guard deadline > now else {
            replyError(job, service: service, OperationError(.deadlineExceeded, "the request's deadline had passed when it reached the broker"))
            return
        }
        guard service.queue.count < configuration.queueLimit else {
            replyError(job, service: service, OperationError(.unavailable, "the \(name) service has \(configuration.queueLimit) requests waiting; try again shortly"))
            return
        }
        service.queue.append(job)
        deadlines.insert(DeadlineCheck(deadline: deadline, service: name))
        dispatch(service)
    }

    /// RFC 8: `mmi.service` answers 200 when the service named by the last body frame has a worker,
    /// 404 when not; other `mmi.` services answer 501. Earlier body frames come back unchanged, so a
    /// client can correlate with them.
    private func answerMMI(_ address: Frame, serviceFrame: Frame, name: String, body: [Frame]) {
        let code: String
        if name == MDP.mmiService {
            let asked = String(decoding: body.last ?? [], as: UTF8.self)
            code = (services[asked]?.workerCount ?? 0) > 0 ? "200" : "404"
        } else {
            code = "501"
        }
        send([address] + MDP.clientReply(service: serviceFrame, body: body.dropLast() + [Array(code.utf8)]))
    }

    /// Hands queued jobs to workers with room, in turn: a worker that still has room after a job
    /// goes to the back of the line.
    func dispatch(_ service: ServiceState) {
        while !service.queue.isEmpty, let address = service.ready.popFirst() {
            guard workers[address] != nil else { continue }
            var job = service.queue.removeFirst()
            job.dispatches += 1
            let sentAs = workers[address]!.hold(job, now: clock.now)
            if workers[address]!.hasRoom { service.ready.append(address) }
            send([address] + MDP.request(clientAddress: sentAs, body: job.body))
        }
        service.metrics.queueDepth.record(service.queue.count)
    }

    /// Answers every queued job whose deadline has passed: `unavailable` when the service has no
    /// worker at all, `deadline_exceeded` when its workers were busy.
    func expireQueued(now: ContinuousClock.Instant) {
        while let first = deadlines.min, first.deadline <= now {
            _ = deadlines.popMin()
            guard let service = services[first.service] else { continue }
            while let index = service.queue.firstIndex(where: { $0.deadline <= now }) {
                let job = service.queue.remove(at: index)
                let error =
                    service.workerCount == 0
                    ? OperationError(.unavailable, "no worker of the \(service.name) service is available")
                    : OperationError(.deadlineExceeded, "no worker of the \(service.name) service became free before the deadline")
                replyError(job, service: service, error)
            }
            service.metrics.queueDepth.record(service.queue.count)
        }
    }

    func replyError(_ job: Job, service: ServiceState, _ error: OperationError) {
        replyError(to: job.client, serviceFrame: service.nameFrame, id: job.id, type: job.type, error)
    }

    /// Sends the client a typed error reply in the envelope format, correlated when the id is known.
    func replyError(to address: Frame, serviceFrame: Frame, id: String?, type: String?, _ error: OperationError) {
        BrokerMetrics.errorReplies(error.code).increment()
        let attributes = ReplyAttributes(correlationID: id, requestType: type, source: "urn:melon:broker", outcome: .error(error.code))
        let reply = ReplyEnvelope<Empty>(attributes: attributes, result: .failure(error))
        guard let body = try? codec.encode(reply) else { return }
        send([address] + MDP.clientReply(service: serviceFrame, body: [body]))
    }

    func serviceState(_ name: String) -> ServiceState {
        if let service = services[name] { return service }
        let service = ServiceState(name: name)
        services[name] = service
        return service
    }
}
