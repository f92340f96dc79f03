import { describe, expect, it } from 'vitest';
import { clusterForServiceUrl, decodeHydraId, encodeHydraId } from '../../../src/adapters/channels/webex/hydra-id';

describe('hydra ids', () => {
  it('encodes like Webex: unpadded base64url of ciscospark://cluster/TYPE/uuid', () => {
    expect(encodeHydraId('MESSAGE', '0a1b2c3d-4e5f-6789-abcd-ef0123456789')).toBe(
      'Y2lzY29zcGFyazovL3VzL01FU1NBR0UvMGExYjJjM2QtNGU1Zi02Nzg5LWFiY2QtZWYwMTIzNDU2Nzg5',
    );
  });

  it('always uses the us cluster for people', () => {
    expect(decodeHydraId(encodeHydraId('PEOPLE', 'p-1', 'urn:TEAM:eu-central-1_k'))).toEqual({ cluster: 'us', type: 'PEOPLE', uuid: 'p-1' });
  });

  it('decodes padded standard base64 too, and rejects what is not a Hydra id', () => {
    const padded = Buffer.from('ciscospark://us/ROOM/r-12').toString('base64');
    expect(padded.endsWith('=')).toBe(true);
    expect(decodeHydraId(padded)).toEqual({ cluster: 'us', type: 'ROOM', uuid: 'r-12' });
    expect(decodeHydraId('not a hydra id')).toBeUndefined();
    expect(decodeHydraId(Buffer.from('ciscospark://us/NOPE/x').toString('base64url'))).toBeUndefined();
  });

  it('takes the cluster from the host catalog entry of the conversation service', () => {
    const catalog = {
      hostCatalog: {
        'conv-a.wbx2.com': [{ host: 'conv-a.wbx2.com', id: 'urn:TEAM:us-east-2_a:conversation' }],
        'conv-k.wbx2.com': [{ host: 'conv-k.wbx2.com', id: 'urn:TEAM:eu-central-1_k:conversation' }],
      },
    };
    expect(clusterForServiceUrl(catalog, 'https://conv-a.wbx2.com/conversation/api/v1/conversations/x')).toBe('us');
    expect(clusterForServiceUrl(catalog, 'https://conv-k.wbx2.com/conversation/api/v1/conversations/x')).toBe('urn:TEAM:eu-central-1_k');
    expect(clusterForServiceUrl(catalog, 'https://unknown.example/x')).toBe('us');
  });
});
