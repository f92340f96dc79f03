import { REMEDIATION_VARIANTS, type RemediationVariant } from '../demo/brain';

/** `--model`: the scripted agent (optionally misbehaving) or a model opencode's configured provider serves. */
export type ModelSpec = { kind: 'scripted'; variant: RemediationVariant } | { kind: 'runtime'; model: string };

/** `scripted`, `scripted/<variant>` or `provider/model`; `--variant` only goes with the scripted agent. */
export function parseModelSpec(model: string, variant?: string): ModelSpec {
  const [provider, ...rest] = model.split('/');
  if (provider === 'scripted') {
    const named = rest.join('/') || variant || 'faithful';
    if (rest.length && variant && variant !== named) throw new Error(`--model ${model} and --variant ${variant} disagree`);
    if (!(REMEDIATION_VARIANTS as readonly string[]).includes(named)) throw new Error(`unknown variant "${named}"; one of ${REMEDIATION_VARIANTS.join(', ')}`);
    return { kind: 'scripted', variant: named as RemediationVariant };
  }
  if (!/^[\w.-]+\/[\w.:/-]+$/.test(model)) throw new Error('--model must be scripted, scripted/<variant> or provider/model as opencode names it');
  if (variant) throw new Error('--variant applies to the scripted agent only (--model scripted)');
  return { kind: 'runtime', model };
}

export const modelLabel = (spec: ModelSpec) => (spec.kind === 'scripted' ? `scripted/${spec.variant}` : spec.model);
