import { DeviceError } from '../errors';
import { checkFragment, FragmentRefused, type ApprovedFragment } from '../../../runbooks/netconf-fragment';

export type { ApprovedFragment } from '../../../runbooks/netconf-fragment';

/** The approved lines as one `<config>` element (runbooks/netconf-fragment.ts), or not_in_grammar before anything is sent. */
export function approvedFragment(device: string, lines: string[]): ApprovedFragment {
  try {
    return checkFragment(device, lines);
  } catch (error) {
    if (error instanceof FragmentRefused) throw new DeviceError('not_in_grammar', error.message);
    throw error;
  }
}
