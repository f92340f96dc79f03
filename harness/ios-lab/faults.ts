// The faults a test case injects are part of the runbook model (a test case names one), so they are
// defined there; the labs inject them by these names.
export * from '../../src/runbooks/fault-spec';
