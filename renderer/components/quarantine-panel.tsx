import { useState } from 'react';
import { RelayAnswer } from './relay-answer';
import type { QuarantineEntry } from '../../src/core/quarantine/entry';
import type { Bridge } from '../bridge/contract';
import { utcStamp } from '../lib/format';
import { errorText } from '../../src/core/error-body';

/**
 * Quarantined devices (a change on them could not be put back): no configuration reaches them until
 * an approver who has checked the device clears it here; the relay checks who, as for the API.
 */
export function QuarantinePanel({ bridge, devices, onCleared }: { bridge: Bridge; devices: QuarantineEntry[]; onCleared(): void }) {
  const [busy, setBusy] = useState<string | undefined>();
  const [answer, setAnswer] = useState<{ ok: boolean; text: string } | undefined>();
  if (devices.length === 0) return null;
  const clear = (device: string) => {
    setBusy(device);
    setAnswer(undefined);
    bridge
      .clearDevice(device)
      .then(
        (r) => {
          setAnswer(r.status === 'cleared' ? { ok: true, text: `${r.device} cleared: changes may reach it again` } : { ok: false, text: r.message });
          if (r.status === 'cleared') onCleared();
        },
        (e: unknown) => setAnswer({ ok: false, text: errorText(e) }),
      )
      .finally(() => setBusy(undefined));
  };
  return (
    <section className="panel quarantine" aria-label="Quarantined devices">
      <h3>Quarantined devices</h3>
      <ul>
        {devices.map((d) => (
          <li key={d.device} data-device={d.device}>
            <strong>{d.device}</strong> is quarantined since {utcStamp(d.since)}: {d.reason}
            {bridge.canDecide ? (
              <button type="button" onClick={() => clear(d.device)} disabled={busy !== undefined} title="After checking the device by hand: let approved changes reach it again">
                {busy === d.device ? 'Clearing…' : 'Clear'}
              </button>
            ) : (
              <span className="dim small"> (an approver clears it)</span>
            )}
          </li>
        ))}
      </ul>
      <RelayAnswer answer={answer} />
    </section>
  );
}
