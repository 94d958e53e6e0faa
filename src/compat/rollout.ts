import { compareSchemas, type CompatOptions, type CompatResult } from './compare.js';

/** Which side of a topic deploys a schema change first. */
type RolloutOrder = 'consumers-first' | 'producers-first' | 'either' | 'new-urn';

export interface Rollout {
  order: RolloutOrder;
  /** One sentence for reports. */
  sentence: string;
  /** With a registry that names the URN's services: each side's services, in the order to deploy them (src/compat/reach.ts). */
  deploy?: ReadonlyArray<{ role: 'consumers' | 'producers'; services: readonly string[] }>;
}

const ROLLOUTS: Record<RolloutOrder, string> = {
  either: 'Deploy in either order: data valid under the old schema is valid under the new one and the other way round.',
  'consumers-first':
    'Deploy consumers first: the new schema accepts what producers send today, while the old schema may reject what new producers send.',
  'producers-first':
    'Deploy producers first: consumers on the old schema accept what new producers send, while the new schema may reject data already in flight.',
  'new-urn': 'Mint a new URN: no order is safe, since each schema rejects data valid under the other.',
};

/** Said after the order when a verdict it relies on rests on a policy choice (Change.policyChoice), per direction. */
const BY_POLICY = {
  backward: ' Except old data a policy choice lets through, which the new schema rejects all the same.',
  forward: ' Except new data a policy choice lets through, which the old schema rejects all the same.',
} as const;

/**
 * The deployment order a change allows. Backward-compatible (the new schema reads old data):
 * upgrade consumers first. Forward-compatible (the old schema reads new data): producers first.
 * `byPolicy`: which verdicts rest on a policy choice, so the sentence promises no more than that.
 */
export function rolloutOrder(
  backwardCompatible: boolean,
  forwardCompatible: boolean,
  byPolicy: { backward?: boolean; forward?: boolean } = {},
): Rollout {
  const order: RolloutOrder = backwardCompatible
    ? forwardCompatible
      ? 'either'
      : 'consumers-first'
    : forwardCompatible
      ? 'producers-first'
      : 'new-urn';
  const backward = backwardCompatible && byPolicy.backward === true ? BY_POLICY.backward : '';
  const forward = forwardCompatible && byPolicy.forward === true ? BY_POLICY.forward : '';
  return { order, sentence: ROLLOUTS[order] + backward + forward };
}

/** Whether a compatible verdict rests on a policy choice that data can refute. */
export const restsOnPolicy = (r: CompatResult): boolean => r.compatible && r.changes.some((c) => c.policyChoice === true);

export interface Assessment {
  backward: CompatResult;
  forward: CompatResult;
  rollout: Rollout;
}

/** Both directions of one schema change and the rollout order they allow (the policy applies to both). */
export function assessChange(oldSchema: unknown, newSchema: unknown, options: Omit<CompatOptions, 'level'> = {}): Assessment {
  const backward = compareSchemas(oldSchema, newSchema, { ...options, level: 'backward' });
  const forward = compareSchemas(oldSchema, newSchema, { ...options, level: 'forward' });
  return {
    backward,
    forward,
    rollout: rolloutOrder(backward.compatible, forward.compatible, { backward: restsOnPolicy(backward), forward: restsOnPolicy(forward) }),
  };
}
