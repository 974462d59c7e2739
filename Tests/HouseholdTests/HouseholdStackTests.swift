import Testing

/// Every household suite that runs a service stack in process is nested here: they run one test
/// at a time, so that on a 2-core machine they do not starve each other (each test alone takes about
/// a second; twenty at once beside the rest of the suite ran past their time limits).
@Suite(.serialized, .timeLimit(.minutes(10))) struct HouseholdStackTests {}
