import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { HeldRequests } from '../core/approvals/held-requests';
import { laptopCluster } from '../core/cluster/laptop';
import { localRelayTag } from '../core/delivery/spare-session';
import type { QuarantineBackend } from '../core/quarantine/entry';
import { openFileOutboxStore } from '../adapters/outbox/file-store';
import type { RelayCluster } from './relay-contract';

/**
 * A relay alone (src/core/cluster/laptop.ts) with its outboxes in its data folder; quarantines and
 * held requests where it is told (start-headless: the data folder, `dataFolderKeeps`), else memory.
 */
export function laptopRelayCluster(dataDir: string, keeps: { held?: HeldRequests; quarantine?: QuarantineBackend } = {}): RelayCluster {
  const dir = resolve(dataDir);
  return { ...laptopCluster({ relayTag: localRelayTag(dir), ...keeps }), host: hostname(), openOutbox: (stream) => openFileOutboxStore(dir, stream) };
}
