import { useEffect, useState } from 'react';

export type Route =
  | { view: 'incidents'; incidentId?: string }
  | { view: 'health' }
  | { view: 'prompt' }
  | { view: 'settings' };

/** Hash routes work the same from file:// (the tray) and from /ui/ (the relay). */
export function parseRoute(hash: string): Route {
  const [view, id] = hash.replace(/^#\/?/, '').split('/');
  if (view === 'health' || view === 'prompt' || view === 'settings') return { view };
  return id ? { view: 'incidents', incidentId: decodeURIComponent(id) } : { view: 'incidents' };
}

export const hrefFor = (route: Route) =>
  route.view === 'incidents' ? (route.incidentId ? `#/incidents/${encodeURIComponent(route.incidentId)}` : '#/incidents') : `#/${route.view}`;

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
