import { useEffect, useState } from 'react';
import type { Bridge } from '../bridge/contract';
import { HealthPanel } from '../components/health-panel';
import { StandingWarnings } from '../components/standing-warnings';
import { IncidentList } from '../components/incident-list';
import { IncidentView } from '../components/incident-view';
import { PromptCopier } from '../components/prompt-copier';
import { SettingsView } from '../components/settings-view';
import { createLiveFeed, type LiveFeed } from '../state/live-feed';
import { hrefFor, useRoute, type Route } from '../lib/use-route';
import { useIncidents } from './use-incidents';

const NAV: { route: Route; label: string }[] = [
  { route: { view: 'incidents' }, label: 'Incidents' },
  { route: { view: 'health' }, label: 'Health' },
  { route: { view: 'prompt' }, label: 'Headed prompt' },
  { route: { view: 'settings' }, label: 'Settings' },
];

export function App({ bridge }: { bridge: Bridge }) {
  const [feed, setFeed] = useState<LiveFeed | undefined>();
  useEffect(() => {
    const f = createLiveFeed(bridge);
    setFeed(f);
    return () => f.close();
  }, [bridge]);
  return feed ? <Shell bridge={bridge} feed={feed} /> : null;
}

function Shell({ bridge, feed }: { bridge: Bridge; feed: LiveFeed }) {
  const route = useRoute();
  const { incidents, byId, loaded } = useIncidents(bridge, feed);
  const awaiting = incidents.filter((i) => i.state === 'awaiting_approval').length;
  const open = incidents.filter((i) => !['resolved', 'escalated', 'failed'].includes(i.state)).length;

  // The tray's menu or a notification click opens an incident (its approval panel).
  useEffect(
    () =>
      bridge.onOpenIncident?.((incidentId) => {
        window.location.hash = hrefFor({ view: 'incidents', incidentId });
      }),
    [bridge],
  );

  useEffect(() => {
    document.title = awaiting ? `(${awaiting}) Fault Relay` : 'Fault Relay';
  }, [awaiting]);

  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">Fault Relay</span>
        <nav aria-label="Views">
          {NAV.map((n) => (
            <a key={n.label} href={hrefFor(n.route)} aria-current={route.view === n.route.view ? 'page' : undefined}>
              {n.label}
              {n.route.view === 'incidents' && awaiting ? <span className="count attention">{awaiting}</span> : null}
            </a>
          ))}
        </nav>
        <span className="spacer" />
        <span className="dim small">{loaded ? `${open} open · ${incidents.length} total` : ''}</span>
        {bridge.canDecide ? null : (
          <span className="badge readonly" title="Sign in as an approver (the link npm run relay prints) to decide here">
            read-only
          </span>
        )}
      </header>
      <StandingWarnings bridge={bridge} />
      <main>
        {route.view === 'incidents' ? (
          <div className={`split${route.incidentId ? ' has-selection' : ''}`}>
            <IncidentList incidents={incidents} loaded={loaded} selectedId={route.incidentId} />
            {route.incidentId ? (
              <IncidentView key={route.incidentId} bridge={bridge} feed={feed} incidentId={route.incidentId} summary={byId.get(route.incidentId)} />
            ) : (
              <section className="incident-view">
                <p className="empty">Select an incident to see its live timeline.</p>
              </section>
            )}
          </div>
        ) : null}
        {route.view === 'health' ? <HealthPanel bridge={bridge} /> : null}
        {route.view === 'prompt' ? <PromptCopier bridge={bridge} /> : null}
        {route.view === 'settings' ? <SettingsView bridge={bridge} /> : null}
      </main>
    </div>
  );
}
