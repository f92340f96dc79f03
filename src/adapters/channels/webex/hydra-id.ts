import type { ServiceCatalog } from './schemas';

/**
 * Public REST ids ("Hydra ids") are base64url of `ciscospark://<cluster>/<TYPE>/<uuid>`.
 * Mercury activities carry bare uuids, so the bot builds the REST id itself, with the
 * cluster of the conversation service that produced the activity.
 */
export const HYDRA_TYPES = [
  'ATTACHMENT_ACTION',
  'CONTENT',
  'MEMBERSHIP',
  'MESSAGE',
  'ORGANIZATION',
  'PEOPLE',
  'ROOM',
  'TEAM',
] as const;
export type HydraType = (typeof HYDRA_TYPES)[number];

export interface HydraId {
  cluster: string;
  type: HydraType;
  uuid: string;
}

const DEFAULT_CLUSTER = 'us';
// These clusters predate cluster-qualified ids and are spelled `us` in every public id.
const LEGACY_US_CLUSTERS = ['urn:TEAM:us-east-2_a', 'urn:TEAM:us-east-1_int13'];

export function encodeHydraId(type: HydraType, uuid: string, cluster = DEFAULT_CLUSTER): string {
  // People and organizations are global: their ids always say `us`.
  const c = type === 'PEOPLE' || type === 'ORGANIZATION' ? DEFAULT_CLUSTER : cluster;
  return Buffer.from(`ciscospark://${c}/${type}/${uuid}`, 'utf8').toString('base64url');
}

/** Accepts padded or unpadded, standard or url-safe base64; `undefined` when it is not a Hydra id. */
export function decodeHydraId(id: string): HydraId | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(id)) return undefined;
  const text = Buffer.from(id.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), 'base64url').toString('utf8');
  const m = /^ciscospark:\/\/(.+)\/([A-Z_]+)\/([^/]+)$/.exec(text);
  if (!m) return undefined;
  const [, cluster, type, uuid] = m;
  if (!cluster || !uuid || !(HYDRA_TYPES as readonly string[]).includes(type ?? '')) return undefined;
  return { cluster, type: type as HydraType, uuid };
}

/**
 * The cluster part for ids of objects that live in the conversation service at `serviceUrl`
 * (an activity's `target.url`), looked up in the U2C host catalog; `us` when unknown.
 */
export function clusterForServiceUrl(catalog: Pick<ServiceCatalog, 'hostCatalog'>, serviceUrl: string | undefined): string {
  if (!serviceUrl) return DEFAULT_CLUSTER;
  let url: URL;
  try {
    url = new URL(serviceUrl);
  } catch {
    return DEFAULT_CLUSTER;
  }
  const entries = catalog.hostCatalog[url.host] ?? catalog.hostCatalog[url.hostname] ?? [];
  const entry = entries[0];
  if (!entry) return DEFAULT_CLUSTER;
  if (LEGACY_US_CLUSTERS.some((legacy) => entry.id.startsWith(legacy))) return DEFAULT_CLUSTER;
  return entry.id.split(':').slice(0, 3).join(':');
}

/**
 * Whether two REST ids name the same object: the same room can be spelled with or without
 * padding, url-safe or not, and with `us` or its legacy cluster name. Non-Hydra ids compare as text.
 */
export function sameHydraObject(a: string, b: string): boolean {
  if (a === b) return true;
  const x = decodeHydraId(a);
  const y = decodeHydraId(b);
  return Boolean(x && y && x.type === y.type && x.uuid.toLowerCase() === y.uuid.toLowerCase());
}
