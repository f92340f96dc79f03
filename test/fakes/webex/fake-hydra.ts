/**
 * Hydra ids as Webex issues them. Written apart from `src/adapters/channels/webex/hydra-id.ts` on purpose:
 * a fake that shared the product's encoder would agree with the product's bugs.
 */
export function hydraId(type: string, uuid: string, cluster = 'us'): string {
  return Buffer.from(`ciscospark://${cluster}/${type}/${uuid}`).toString('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Real Webex takes padded standard base64 as well as the url-safe form it issues. */
export function parseHydraId(id: string): { cluster: string; type: string; uuid: string } | undefined {
  const standard = id.replace(/-/g, '+').replace(/_/g, '/');
  const text = Buffer.from(standard, 'base64').toString('utf8');
  const parts = text.replace(/^ciscospark:\/\//, '').split('/');
  if (!text.startsWith('ciscospark://') || parts.length < 3) return undefined;
  const uuid = parts.pop() as string;
  const type = parts.pop() as string;
  return { cluster: parts.join('/'), type, uuid };
}
