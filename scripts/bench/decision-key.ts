/** The team decision key of the benchmarks' throwaway teams (TEAM_DECISION_KEY is required with DATABASE_URL). */
export const BENCH_DECISION_KEY = 'bench-team-decision-key-0123456789abcdef';
