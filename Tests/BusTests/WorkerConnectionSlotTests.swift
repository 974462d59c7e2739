@testable import Bus
import Testing

/// A worker process follows brokers that come and go (issue 42): the slots of connections retired for
/// good are used again, so months of changes do not grow its list.
@Suite(.timeLimit(.minutes(1))) struct WorkerConnectionSlotTests {
    typealias Connection = WorkerReactor.Connection

    static func connection(_ endpoint: String) -> Connection {
        let now = ContinuousClock.now
        return Connection(endpoint: endpoint, capacity: 4, lastReceived: now, lastSent: now)
    }

    @Test func aBrokerSetThatChangesAThousandTimesKeepsOneSlot() {
        var connections = [Self.connection("tcp://a:5555")]
        for change in 1...1_000 {
            for index in connections.indices where !connections[index].gone { connections[index].gone = true }
            let index = WorkerReactor.place(Self.connection("tcp://b\(change):5555"), in: &connections)
            #expect(connections[index].endpoint == "tcp://b\(change):5555")
        }
        #expect(connections.count == 1)
    }

    @Test func aSlotWithHandlersStillRunningIsNotTakenAndGenerationsCarryOn() {
        var connections = [Self.connection("tcp://a:5555"), Self.connection("tcp://b:5555")]
        connections[0].gone = true
        connections[0].stale = 2  // two handlers of its last socket have not answered yet
        connections[0].generation = 7
        connections[1].gone = true
        connections[1].generation = 3
        let index = WorkerReactor.place(Self.connection("tcp://c:5555"), in: &connections)
        #expect(index == 1)
        #expect(connections[1].generation == 3)  // connect() makes it 4: never a generation used before
        #expect(WorkerReactor.place(Self.connection("tcp://d:5555"), in: &connections) == 2)
    }
}
