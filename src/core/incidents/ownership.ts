/**
 * Whether this relay owns an incident: the only relay that arms its timers, expires, supersedes,
 * reconciles, forwards to its run, writes its session log or maps its runtime events. On a laptop
 * relay it owns everything; on a team relay the database's `owner` column says (team/coordinator).
 * Everything that acts on an incident asks; a non-owner only reads, and records human actions for
 * the owner to apply (team/decisions.ts).
 */
export type Owns = (incidentId: string) => boolean;

/** The laptop relay: one relay, every incident its own. */
export const ownsEverything: Owns = () => true;
