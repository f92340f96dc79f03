import { request, type Dispatcher } from 'undici';
import { httpSendResult, networkSendResult, type SendResult } from '../outbox/outbox';
import { OPSGENIE_PRIORITY, PAGERDUTY_SEVERITY, type Page } from './page';

/** How a page reaches its pager: the base URL, the credential, and the proxy for that URL. */
export interface PagerEndpoint {
  url: string;
  secret: string;
  dispatcherFor: (url: string) => Dispatcher | undefined;
  /** How long one try may take before it counts as not reached. */
  timeoutMs?: number;
}

const join = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

/** PagerDuty Events API v2: one event (`POST /v2/enqueue`); the incident id is the `dedup_key`. */
export function pagerDutyEvent(page: Page, routingKey: string) {
  const base = { routing_key: routingKey, event_action: page.action, dedup_key: page.incident_id };
  if (page.action === 'acknowledge') return base;
  const custom_details = { incident: page.incident_id, device: page.device, alert: page.alert_def_id, lines_sha256: page.lines_sha256, request_id: page.request_id, step: String(page.step), ...(page.to ? { to: page.to } : {}), ...(page.note ? { note: page.note } : {}) };
  return {
    ...base,
    payload: {
      summary: page.action === 'resolve' && page.note ? `${page.summary}: ${page.note}`.slice(0, 1024) : page.summary,
      source: page.device,
      severity: page.severity ? PAGERDUTY_SEVERITY[page.severity] : 'error',
      timestamp: new Date().toISOString(),
      component: page.device,
      group: page.alert_def_id,
      class: String(page.step),
      custom_details,
    },
    client: 'Fault Relay',
    client_url: page.links.ui,
    links: [
      { href: page.links.ui, text: 'Incident in Fault Relay' },
      { href: page.links.evidence, text: 'Evidence bundle' },
    ],
  };
}

/** Opsgenie Alert API: create (`POST /v2/alerts`, the incident id as `alias`), acknowledge or close by alias. */
export function opsgenieRequest(page: Page): { path: string; body: Record<string, unknown> } {
  const alias = encodeURIComponent(page.incident_id);
  if (page.action === 'acknowledge') return { path: `/v2/alerts/${alias}/acknowledge?identifierType=alias`, body: { source: 'Fault Relay', user: 'Fault Relay', note: page.note } };
  if (page.action === 'resolve') return { path: `/v2/alerts/${alias}/close?identifierType=alias`, body: { source: 'Fault Relay', user: 'Fault Relay', note: page.note } };
  return {
    path: '/v2/alerts',
    body: {
      message: page.summary.slice(0, 130),
      alias: page.incident_id,
      description: `${page.summary}\n\nIncident: ${page.links.ui}\nEvidence: ${page.links.evidence}`.slice(0, 15_000),
      priority: page.severity ? OPSGENIE_PRIORITY[page.severity] : 'P3',
      entity: page.device,
      source: 'Fault Relay',
      ...(page.to ? { tags: [page.to] } : {}),
      details: { incident: page.incident_id, device: page.device, alert: page.alert_def_id, lines_sha256: page.lines_sha256, request_id: page.request_id, step: String(page.step), ui: page.links.ui, evidence: page.links.evidence },
    },
  };
}

async function post(endpoint: PagerEndpoint, path: string, headers: Record<string, string>, body: unknown): Promise<SendResult> {
  const url = join(endpoint.url, path);
  const dispatcher = endpoint.dispatcherFor(url);
  try {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      headersTimeout: endpoint.timeoutMs ?? 15_000,
      bodyTimeout: endpoint.timeoutMs ?? 15_000,
      ...(dispatcher ? { dispatcher } : {}),
    });
    const text = await res.body.text();
    return httpSendResult(res.statusCode, res.headers, text);
  } catch (error) {
    return networkSendResult(error);
  }
}

/** Sends one page to its pager; the credential is added here and never stored with the page. */
export function sendPage(page: Page, endpoints: Partial<Record<Page['pager'], PagerEndpoint>>): Promise<SendResult> {
  const endpoint = endpoints[page.pager];
  if (!endpoint) return Promise.resolve({ ok: false, permanent: true, reason: `${page.pager} is not configured on this relay` });
  if (page.pager === 'pagerduty') return post(endpoint, '/v2/enqueue', {}, pagerDutyEvent(page, endpoint.secret));
  const { path, body } = opsgenieRequest(page);
  return post(endpoint, path, { authorization: `GenieKey ${endpoint.secret}` }, body);
}
