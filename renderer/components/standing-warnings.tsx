import { useEffect, useState } from 'react';
import type { Bridge } from '../bridge/contract';

const EVERY_MS = 60_000;

/**
 * What stays wrong until someone changes the configuration (no model configured, unattended
 * approvals treated as approved, no approval channel), on every page until it is fixed.
 */
export function StandingWarnings({ bridge }: { bridge: Bridge }) {
  const [warnings, setWarnings] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    const check = () =>
      bridge.health().then(
        (h) => live && setWarnings(h.warnings ?? []),
        () => undefined, // the health page says when the relay does not answer
      );
    void check();
    const timer = setInterval(() => void check(), EVERY_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [bridge]);
  if (warnings.length === 0) return null;
  return (
    <div className="standing-warnings" role="alert" aria-label="Configuration warnings">
      {warnings.map((w) => (
        <p key={w}>⚠ {w}</p>
      ))}
    </div>
  );
}
