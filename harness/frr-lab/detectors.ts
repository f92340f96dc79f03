import { savedSearchEnvelope } from '../../src/adapters/alert-sources/sample';
import { isAdminDown, parseAdjChange, type AdjChange } from './adjchange';
import { INTERFACE_ADMIN_DOWN, interfaceCameUp } from './detectors-interface';
import { REMOTE_AS_MISMATCH } from './detectors-remote-as';
import { OSPF_ADJACENCY_LOST, ospfAdjacencyFull, type OspfDetectContext } from './detectors-ospf';
import { OSPF_MTU_MISMATCH } from './detectors-mismatch';

/**
 * How the FRR lab's "Splunk" recognises each alert definition in a router's own log: one detector per
 * definition, each a saved search over FRR's log lines. A detector's regex is the FRR form of its FS's
 * detection pattern (test/unit/frr-lab/detectors.test.ts proves the FS matches every line a detector
 * alerts on, with the same fields), so the alert the relay receives passes the runbook's own checks.
 * A new definition that FRR reproduces adds one entry here.
 */
export interface Detection {
  alert_def_id: string;
  /** The saved search's name, as Splunk would send it. */
  search_name: string;
  /** The alert fields the search extracts (FS variable names), besides the device. */
  fields: Record<string, string>;
  /** Epoch seconds of the line's own stamp. */
  time: number;
  raw: string;
}

export interface DetectContext extends OspfDetectContext {
  /** The remote AS of a neighbor of the router that logged the line, when the lab knows it. */
  peerAs?: (neighbor: string) => number | undefined;
}

interface Detector {
  alert_def_id: string;
  search_name: string;
  detect(line: string, ctx: DetectContext): Pick<Detection, 'fields' | 'time'> | undefined;
}

const STAMP = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d+)? /;

/** FRR writes local time; the lab runs on the host's clock and zone. */
export function frrLineTime(line: string): number | undefined {
  const m = STAMP.exec(line);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac] = m;
  return new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)).getTime() / 1000 + Number(frac ?? 0);
}

const IPV4 = '(?:\\d{1,3}\\.){3}\\d{1,3}';
const MAXPFX = new RegExp(`^\\S+ \\S+ BGP: (?:\\[[\\w-]+\\] )?%MAXPFXEXCEED: No\\. of IPv4 Unicast prefix received from (?<neighbor_ip>${IPV4})(?:\\([^)]*\\))? (?<prefix_count>\\d+) exceed, limit (?<prefix_limit>\\d+)`);

const NO_SOURCE = new RegExp(`^\\S+ \\S+ BGP: (?:\\[[\\w-]+\\])*(?:\\[EC \\d+\\])? ?(?<neighbor_ip>${IPV4}): nexthop_set failed, resetting connection - intf \\(Unknown\\)`);

const withAs = (fields: Record<string, string>, as: number | undefined) => (as ? { ...fields, neighbor_as: String(as) } : fields);

export const DETECTORS: readonly Detector[] = [
  {
    // Only the shut router's line: the peer's "Notification received" is that router's symptom, not a second fault.
    alert_def_id: 'AD000002',
    search_name: 'BGP neighbor admin down',
    detect(line, ctx) {
      const c = parseAdjChange(line);
      if (!c || !isAdminDown(c)) return undefined;
      const fields = { neighbor_ip: c.neighbor, ...(c.vrf !== 'default' ? { vrf_name: c.vrf } : {}) };
      return { time: c.time, fields: withAs(fields, ctx.peerAs?.(c.neighbor)) };
    },
  },
  {
    // The overflow line itself; the "Down BGP Notification send" adjacency line after it is only its effect.
    alert_def_id: 'AD000004',
    search_name: 'BGP maximum-prefix exceeded',
    detect(line, ctx) {
      const g = MAXPFX.exec(line)?.groups;
      const time = frrLineTime(line);
      if (!g || time === undefined) return undefined;
      const fields = { neighbor_ip: g.neighbor_ip!, prefix_count: g.prefix_count!, prefix_limit: g.prefix_limit! };
      return { time, fields: withAs(fields, ctx.peerAs?.(g.neighbor_ip!)) };
    },
  },
  {
    // FRR repeats this every connect retry; the watcher posts it once per neighbor until the session is Up.
    alert_def_id: 'AD000007',
    search_name: 'BGP update-source interface missing',
    detect(line, ctx) {
      const g = NO_SOURCE.exec(line)?.groups;
      const time = frrLineTime(line);
      if (!g || time === undefined) return undefined;
      return { time, fields: withAs({ neighbor_ip: g.neighbor_ip! }, ctx.peerAs?.(g.neighbor_ip!)) };
    },
  },
  // AD000003 from zebra's kernel link update (detectors-interface.ts).
  INTERFACE_ADMIN_DOWN,
  // AD000006 from the notification rejecting the peer's OPEN (detectors-remote-as.ts); it repeats each retry, posted once until Up.
  REMOTE_AS_MISMATCH,
  // AD000005 from ospfd's adjacency change (detectors-ospf.ts).
  OSPF_ADJACENCY_LOST,
  // AD000008 from ospfd refusing the far end's larger database description (detectors-mismatch.ts); AD000009
  // is no single line's alert: the watcher's quiet-window search (silentResetSearch) posts it.
  OSPF_MTU_MISMATCH,
];

/** Every definition a log line is an alert of (normally none, at most one). */
export function detectFaults(line: string, ctx: DetectContext = {}): Detection[] {
  const raw = line.trim();
  return DETECTORS.flatMap((d) => {
    const hit = d.detect(raw, ctx);
    return hit ? [{ alert_def_id: d.alert_def_id, search_name: d.search_name, raw, ...hit }] : [];
  });
}

/** The Splunk webhook body the saved search would post for a detection on `router`. */
export function splunkAlertForDetection(router: string, d: Detection) {
  const epoch = Math.floor(d.time);
  const sid = `scheduler__admin__search__RMD5frrlab_${d.alert_def_id}_at_${epoch}_${router}`;
  return {
    ...savedSearchEnvelope(sid),
    search_name: d.search_name,
    result: {
      alert_def_id: d.alert_def_id,
      system: router,
      _time: String(epoch),
      ...d.fields,
      // The daemon that logged the line (BGP:, OSPF:, ZEBRA:), as a per-daemon Splunk input would tag it.
      sourcetype: `frr:${(/^\S+ \S+ (\w+):/.exec(d.raw)?.[1] ?? 'frr').toLowerCase()}`,
      // What the saved search's inventory lookup adds: it selects the runbook's FRR command forms.
      device_platform: 'frr',
      _raw: d.raw,
    },
  };
}

/**
 * Faults alerted and not yet over. FRR repeats some lines (AD000007 every connect retry) and a saved
 * search throttles by its fields, so each fault is posted once per router and neighbor until that
 * neighbor's session is Up again; the next occurrence after that is a new fault.
 */
export function createAlertThrottle() {
  const open = new Map<string, { router: string; neighbor: string; interface?: string }>();
  const key = (router: string, d: Detection) => JSON.stringify([router, d.alert_def_id, d.fields.neighbor_ip ?? '', d.fields.vrf_name ?? '', d.fields.interface ?? '']);
  return {
    /** The detections of one line of `router`'s log that are new faults; `line` ends an interface's fault when it says it is up. */
    admit(router: string, detections: readonly Detection[], change?: AdjChange, line?: string): Detection[] {
      if (change?.state === 'Up') {
        for (const [k, v] of open) if (v.router === router && v.neighbor === change.neighbor) open.delete(k);
      }
      const up = line === undefined ? undefined : interfaceCameUp(line);
      if (up) for (const [k, v] of open) if (v.router === router && v.interface === up) open.delete(k);
      // An OSPF adjacency Full again on an interface ends its AD000005 fault (detectors-ospf.ts).
      const full = line === undefined ? undefined : ospfAdjacencyFull(line);
      if (full) for (const [k, v] of open) if (v.router === router && v.interface === full) open.delete(k);
      const fresh = detections.filter((d) => !open.has(key(router, d)));
      for (const d of fresh) open.set(key(router, d), { router, neighbor: d.fields.neighbor_ip ?? '', interface: d.fields.interface });
      return fresh;
    },
  };
}
