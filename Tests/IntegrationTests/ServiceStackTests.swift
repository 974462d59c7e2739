import Testing

/// Every suite that starts processes (services, brokers, workers, validators, schemathesis, Python
/// peers, SMTP servers) is nested here: they run one test at a time, so that on a 2-core machine they
/// do not starve each other or the rest of the suite, which runs beside them in parallel.
@Suite(.serialized, .timeLimit(.minutes(15))) struct ServiceStackTests {}
