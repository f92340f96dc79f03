import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Clock } from '../../core/clock';
import type { RelayConfig } from '../../config/schema';
import { createProxyDispatchers, NO_PROXY_SETTINGS, type ProxySettings } from '../net/proxy';
import type { AuditSender } from './sender';
import { createSplunkHecSender } from './splunk-hec';
import { createRelpSender } from './relp';
import { createSyslogSender, parseSyslogUrl } from './syslog';
import { errorText } from '../../core/error-body';

type AuditConfig = Pick<RelayConfig, 'SPLUNK_HEC_URL' | 'SPLUNK_HEC_TOKEN' | 'SPLUNK_HEC_ACK' | 'SPLUNK_HEC_INDEX' | 'SYSLOG_URL' | 'SYSLOG_CA_FILE'>;

/**
 * The SIEM senders the settings ask for: none, Splunk HEC, syslog, or both. HEC goes through the
 * corporate proxy like every outbound HTTP call; syslog is a plain TCP or TLS connection, with RELP's
 * acknowledgements for relp:// and relp+tls://.
 * A CA file that cannot be read stops the relay at start, with the setting named.
 */
export function auditSendersFrom(config: AuditConfig, opts: { clock: Clock; proxy?: ProxySettings; host?: string }): { senders: AuditSender[]; close(): Promise<void> } {
  const host = opts.host ?? hostname();
  const senders: AuditSender[] = [];
  const proxies = createProxyDispatchers(opts.proxy ?? NO_PROXY_SETTINGS);
  if (config.SPLUNK_HEC_URL && config.SPLUNK_HEC_TOKEN) {
    const dispatcher = proxies.for(config.SPLUNK_HEC_URL);
    senders.push(
      createSplunkHecSender({
        url: config.SPLUNK_HEC_URL,
        token: config.SPLUNK_HEC_TOKEN,
        ack: config.SPLUNK_HEC_ACK === 'on',
        ...(config.SPLUNK_HEC_INDEX ? { index: config.SPLUNK_HEC_INDEX } : {}),
        host,
        clock: opts.clock,
        ...(dispatcher ? { dispatcher } : {}),
      }),
    );
  }
  if (config.SYSLOG_URL) {
    const target = parseSyslogUrl(config.SYSLOG_URL);
    if ('error' in target) throw new Error(`SYSLOG_URL: ${target.error}`);
    let ca: string | undefined;
    if (config.SYSLOG_CA_FILE) {
      try {
        ca = readFileSync(config.SYSLOG_CA_FILE, 'utf8');
      } catch (error) {
        throw new Error(`SYSLOG_CA_FILE cannot be read: ${(error as NodeJS.ErrnoException).code ?? errorText(error)}`);
      }
    }
    const options = { target, host, ...(ca ? { ca } : {}) };
    senders.push(target.protocol === 'relp' || target.protocol === 'relp+tls' ? createRelpSender(options) : createSyslogSender(options));
  }
  return { senders, close: () => proxies.close() };
}
