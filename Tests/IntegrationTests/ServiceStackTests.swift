import Testing

/// The suites that start whole services as processes (several each, plus SMTP servers and
/// databases): they run one test at a time, so that on a 2-core machine they do not starve each
/// other or the rest of the suite, which runs beside them in parallel.
@Suite(.serialized) struct ServiceStackTests {}
