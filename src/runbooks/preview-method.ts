/**
 * How a change's preview was made, in the words every channel shows (card, Slack, terminal, tray,
 * /ui, notification). No zod here: the renderer imports it.
 *
 * - `candidate`: the device's own dry run (NETCONF: edit-config on the candidate, validate, diff, discard).
 * - `config_session`: a configuration session diffed and aborted (EOS), or a copy of the lab device's state.
 * - `parser_checked`: FRR's own parser checked the lines (vtysh --dryrun); the diff is predicted from the live running configuration.
 * - `predicted`: no dry run exists without applying (IOS family, or FRR without a vtysh beside the device
 *   server): the platform's grammar check and a diff predicted from the live running configuration.
 */
export const PREVIEW_METHODS = ['candidate', 'config_session', 'parser_checked', 'predicted'] as const;
export type PreviewMethod = (typeof PREVIEW_METHODS)[number];

const HOW: Record<PreviewMethod, string> = {
  candidate: "dry run on the device's candidate",
  config_session: 'dry run in a configuration session',
  parser_checked: "checked by FRR's own parser, predicted from the live running configuration",
  predicted: 'predicted from the live running configuration',
};

export const previewMethodText = (method: PreviewMethod): string => HOW[method];
