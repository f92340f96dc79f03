/**
 * The team relay's schema, versioned here and applied in order at start (`migrate`). A migration
 * is never edited once released: a change is a new entry.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'incidents, timelines, relays, decisions',
    sql: `
      CREATE TABLE incidents (
        incident_id  text PRIMARY KEY,
        doc          jsonb   NOT NULL,
        state        text    NOT NULL,
        terminal     boolean NOT NULL,
        dedup_key    text    NOT NULL,
        created_at   text    NOT NULL,
        updated_at   text    NOT NULL,
        -- Duplicates may be folded in by any relay: these two only ever grow (GREATEST on write).
        occurrences  integer NOT NULL,
        last_seen    text    NOT NULL,
        -- The relay that runs the incident and alone writes its record; another takes over when it dies.
        owner        text    NOT NULL
      );
      -- One open incident per fault, whichever relay received the alert.
      CREATE UNIQUE INDEX incidents_one_open_per_fault ON incidents (dedup_key) WHERE NOT terminal;
      CREATE INDEX incidents_open_by_owner ON incidents (owner) WHERE NOT terminal;
      CREATE INDEX incidents_finished ON incidents (updated_at) WHERE terminal;

      CREATE TABLE timeline (
        seq          bigserial PRIMARY KEY,
        incident_id  text  NOT NULL,
        relay_id     text  NOT NULL,
        entry        jsonb NOT NULL
      );
      CREATE INDEX timeline_by_incident ON timeline (incident_id, seq);

      CREATE TABLE relays (
        relay_id      text PRIMARY KEY,
        name          text NOT NULL,
        started_at    timestamptz NOT NULL DEFAULT now(),
        heartbeat_at  timestamptz NOT NULL DEFAULT now(),
        stopped       boolean NOT NULL DEFAULT false
      );

      -- The first decision on an approval request wins, on whichever relay it arrived.
      CREATE TABLE decisions (
        incident_id   text NOT NULL,
        requested_at  text NOT NULL,
        decision      text NOT NULL,
        by_name       text NOT NULL,
        by_email      text,
        channel       text NOT NULL,
        comment       text,
        decided_at    text NOT NULL,
        received_by   text NOT NULL,
        PRIMARY KEY (incident_id, requested_at)
      );
    `,
  },
  {
    version: 2,
    name: 'relay tags: the suffix of incident ids',
    sql: `
      -- Every start of a relay takes the next number: its incident ids carry it (INC-<UTC>-r<n in base 36>),
      -- so two relays creating incidents in the same second never make the same id.
      CREATE SEQUENCE relay_tags;
    `,
  },
  {
    version: 3,
    name: 'confirms: a person keeps a provisional change, on whichever relay',
    sql: `
      -- The first confirm of a change wins; the relay that owns the incident applies it and writes its answer.
      CREATE TABLE confirms (
        incident_id   text NOT NULL,
        change_id     text NOT NULL,
        by_name       text NOT NULL,
        requested_at  text NOT NULL,
        received_by   text NOT NULL,
        result        jsonb,
        applied_at    text,
        PRIMARY KEY (incident_id, change_id)
      );
    `,
  },
  {
    version: 4,
    name: 'decision and confirm rows carry a MAC under the relays\' key',
    sql: `
      -- HMAC-SHA256 under TEAM_DECISION_KEY (held by the relays, never here): the owner applies only rows whose MAC verifies.
      ALTER TABLE decisions ADD COLUMN mac text;
      ALTER TABLE confirms ADD COLUMN mac text;
      -- The owner's answer to a confirm is signed too: the relay that took the request tells its caller only a verified one.
      ALTER TABLE confirms ADD COLUMN result_mac text;
    `,
  },
  {
    version: 5,
    name: 'approval votes: approvals counted toward a policy requirement, once per person, on whichever relay',
    sql: `
      -- One row per person and request: a second approval by the same person conflicts and counts nothing.
      CREATE TABLE approval_votes (
        incident_id   text NOT NULL,
        requested_at  text NOT NULL,
        by_name       text NOT NULL,
        channel       text NOT NULL,
        voted_at      text NOT NULL,
        received_by   text NOT NULL,
        mac           text,
        PRIMARY KEY (incident_id, requested_at, by_name)
      );
      -- How many were counted: raised in the same statement as the vote's insert, under its row lock,
      -- so two approvals at the same moment on two relays are told 1 and 2, never 1 and 1.
      CREATE TABLE approval_tallies (
        incident_id   text NOT NULL,
        requested_at  text NOT NULL,
        given         integer NOT NULL,
        PRIMARY KEY (incident_id, requested_at)
      );
    `,
  },
  {
    version: 6,
    name: 'quarantined devices: no change reaches them, on any relay, until a person clears them',
    sql: `
      -- One row per quarantined device (its name in lower case): the first quarantine stands until cleared.
      CREATE TABLE quarantined_devices (
        device_key    text PRIMARY KEY,
        device        text NOT NULL,
        reason        text NOT NULL,
        since         text NOT NULL,
        incident_id   text,
        change_id     text
      );
    `,
  },
  {
    version: 7,
    name: 'outbox: pages and audit events, each sent by exactly one relay',
    sql: `
      -- One row per item to deliver (stream: 'pager', 'audit', ...); the key is its dedup key, so one is never sent twice.
      CREATE TABLE outbox (
        stream       text    NOT NULL,
        key          text    NOT NULL,
        kind         text    NOT NULL,
        payload      jsonb   NOT NULL,
        -- pending, then sent or failed (kept: a later enqueue of the same key is dropped).
        state        text    NOT NULL DEFAULT 'pending',
        attempts     integer NOT NULL DEFAULT 0,
        not_before   timestamptz NOT NULL,
        -- The relay sending it now, and until when: a dead relay's lease runs out and another takes it.
        lease_owner  text,
        lease_until  timestamptz,
        last_error   text,
        enqueued_at  timestamptz NOT NULL,
        finished_at  timestamptz,
        PRIMARY KEY (stream, key)
      );
      CREATE INDEX outbox_due ON outbox (stream, not_before) WHERE state = 'pending';
    `,
  },
  {
    version: 8,
    name: 'held requests: a request waiting for another change on its device outlives a restart',
    sql: `
      -- One row per incident whose request_approval waits for another incident's provisional change.
      CREATE TABLE held_requests (
        incident_id           text PRIMARY KEY,
        input                 jsonb NOT NULL,
        waiting_for_incident  text NOT NULL,
        waiting_for_change    text NOT NULL,
        held_at               text NOT NULL
      );
    `,
  },
  {
    version: 9,
    name: 'outbox: how many events each item carries, for the backlog in events',
    sql: `
      -- An audit batch carries many events: /metrics counts the backlog in events, not batches.
      ALTER TABLE outbox ADD COLUMN units integer NOT NULL DEFAULT 1;
    `,
  },
  {
    version: 11,
    name: 'quarantine clears: a quarantine written late does not outlive a person\'s later clear',
    sql: `
      -- The latest clear that lifted each device's quarantine (relay clock, ISO text like since): a
      -- quarantine a relay decided while the database was away, written afterwards, is dropped when a
      -- person cleared the device after it was decided.
      CREATE TABLE quarantine_clears (
        device_key  text PRIMARY KEY,
        cleared_at  text NOT NULL,
        cleared_by  text NOT NULL
      );
    `,
  },
  {
    version: 13,
    name: 'held requests: a plan held while one of its devices is quarantined, until a person clears it',
    sql: `
      -- A plan waits for a quarantined device's clear rather than for another incident's change: the
      -- device, since when and why, as the relay said it; then the change columns are empty.
      ALTER TABLE held_requests ALTER COLUMN waiting_for_incident DROP NOT NULL;
      ALTER TABLE held_requests ALTER COLUMN waiting_for_change DROP NOT NULL;
      ALTER TABLE held_requests ADD COLUMN waiting_for_quarantine jsonb;
    `,
  },
];
