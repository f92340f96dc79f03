import { useCallback, useEffect, useMemo, useReducer } from 'react';
import type { Bridge } from '../bridge/contract';
import { emptyIncidents, incidentsReducer, sortIncidents } from '../state/incidents-state';
import type { LiveFeed } from '../state/live-feed';
import { errorText } from '../../src/core/error-body';

/** All incidents, kept current by the live feed; the first list covers a bridge without a snapshot. */
export function useIncidents(bridge: Bridge, feed: LiveFeed) {
  const [state, dispatch] = useReducer(incidentsReducer, emptyIncidents);
  useEffect(() => {
    let current = true;
    const off = feed.listen(dispatch);
    bridge.listIncidents().then(
      (incidents) => current && dispatch({ type: 'listed', incidents }),
      (error: unknown) => console.warn(`could not list incidents: ${errorText(error)}`),
    );
    return () => {
      current = false;
      off();
    };
  }, [bridge, feed]);
  const sorted = useMemo(() => sortIncidents(state.byId), [state.byId]);
  const cursor = state.olderCursor;
  /** The next page of older finished incidents, when the bridge pages them and there are more. */
  const loadOlder = useCallback(() => {
    if (!cursor || !bridge.listOlder) return;
    bridge.listOlder(cursor).then(
      (page) => dispatch({ type: 'older', ...page }),
      (error: unknown) => console.warn(`could not load older incidents: ${errorText(error)}`),
    );
  }, [bridge, cursor]);
  return { incidents: sorted, byId: state.byId, loaded: state.loaded, loadOlder: cursor && bridge.listOlder ? loadOlder : undefined };
}
