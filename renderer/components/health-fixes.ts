/**
 * The spec's "diagnostics by symptom" table (docs/operating.md, Troubleshooting): what to check and what
 * to fix, shown next to the check that points at it.
 */
export interface Diagnosis {
  symptom: string;
  check: string;
  fix: string;
}

export const DIAGNOSTICS: Diagnosis[] = [
  { symptom: 'Agent cannot find artifacts', check: 'alert_def_id in the prompt', fix: 'use a published artifact group under intelligence-artifacts/' },
  { symptom: 'Relay cannot create a session (alerts stay queued)', check: 'AGENT_URL, agent server auth, /health/deep', fix: 'start the agent runtime server; match the password' },
  { symptom: '/health/deep reports device tool server unreachable', check: 'DEVICE_MCP_URL', fix: 'use a URL reachable from the relay' },
  { symptom: 'Agent cannot call device tools', check: 'device tool server entry in opencode.json', fix: 'correct the URL; ensure the agent host can reach it' },
  { symptom: 'No messages in the room', check: 'MSG_BOT_TOKEN, MSG_ROOM_ID, bot membership', fix: 'add the bot to the room, set both variables, restart the relay' },
  { symptom: 'Approval does not reach the agent', check: 'relay logs, /sessions', fix: 'confirm the incident exists and the Webex connection is up (/health/deep)' },
  { symptom: 'Splunk alert does nothing', check: 'alert action URL', fix: 'point it at /fault-alert of the relay' },
  { symptom: 'Every alert fails at once: no model configured', check: '`model` in opencode.json or OPENCODE_CONFIG_CONTENT', fix: 'set the model the runs use, then restart the relay' },
  { symptom: 'No run starts (/health says degraded)', check: 'the reasons /health names', fix: 'fix each named reason; queued alerts go out once it clears' },
  { symptom: 'Incidents are not kept (store check failed)', check: 'RELAY_DATA_DIR (writable) or DATABASE_URL', fix: 'make the data folder writable or the database reachable' },
  { symptom: 'A device is quarantined (no change reaches it)', check: 'the reason /health names: which change could not be rolled back', fix: 'check the device by hand and put its configuration right, then an approver clears it (Clear below, or POST /devices/<name>/clear)' },
  { symptom: 'Device commands fail', check: 'device hostname vs inventory, credentials, MCP tool errors in the session', fix: 'fix the inventory name or permissions' },
];

const bySymptom = (start: string) => DIAGNOSTICS.find((d) => d.symptom.startsWith(start)) as Diagnosis;

export const FIX_FOR = {
  agent_runtime: bySymptom('Relay cannot create a session'),
  device_mcp: bySymptom('/health/deep reports device tool server'),
  messaging: bySymptom('No messages in the room'),
  model: bySymptom('Every alert fails at once'),
  runs: bySymptom('No run starts'),
  store: bySymptom('Incidents are not kept'),
};
