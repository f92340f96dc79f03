import type { Logger } from 'pino';
import { serviceCatalogSchema, type ServiceCatalog } from './schemas';
import { WebexApiError, type WebexHttp } from './webex-http';
import { errorText } from '../../../core/error-body';

export const DEFAULT_U2C_URL = 'https://u2c.wbx2.com/u2c/api/v1';
/** Used only when the catalog cannot be read: it may be the wrong region for some orgs. */
export const DEFAULT_WDM_URL = 'https://wdm-a.wbx2.com/wdm/api/v1';

export interface DiscoveredServices {
  wdmUrl: string;
  catalog: ServiceCatalog;
  /** True when WDM came from the fallback, worth a warning: events may never arrive. */
  usedFallback: boolean;
}

/**
 * Where to register the device. The catalog knows the org's home region; a hard-coded WDM
 * can register in a region that authorizes the socket but never delivers activities.
 */
export async function discoverServices(opts: {
  http: WebexHttp;
  u2cUrl: string;
  fallbackWdmUrl?: string;
  logger: Logger;
}): Promise<DiscoveredServices> {
  const url = `${opts.u2cUrl.replace(/\/+$/, '')}/catalog?format=hostmap`;
  const fallback = opts.fallbackWdmUrl ?? DEFAULT_WDM_URL;
  try {
    // No waiting on a failing catalog (the default device service is the better answer); a throttled one is waited out.
    const catalog = await opts.http.call('GET', url, serviceCatalogSchema, undefined, { retries: 0 });
    const wdm = catalog.serviceLinks['wdm'];
    if (wdm) return { wdmUrl: wdm.replace(/\/+$/, ''), catalog, usedFallback: false };
    opts.logger.warn({ fallback }, 'webex service catalog has no wdm link; using the default device service');
    return { wdmUrl: fallback, catalog, usedFallback: true };
  } catch (error) {
    // A refused token fails everywhere: falling back would only hide the real cause.
    if (error instanceof WebexApiError && error.isAuthFailure) throw error;
    opts.logger.warn({ err: errorText(error), fallback }, 'webex service catalog unavailable; using the default device service');
    return { wdmUrl: fallback, catalog: { serviceLinks: {}, hostCatalog: {} }, usedFallback: true };
  }
}

