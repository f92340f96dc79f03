/** Where a decision recorded by one relay is announced to the relay that runs the incident. */
export const DECISION_CHANNEL = 'fault_relay_decisions';
