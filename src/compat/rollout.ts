import { compareSchemas, type CompatOptions, type CompatResult } from './compare.js';

/** Which side of a topic deploys a schema change first. */
export type RolloutOrder = 'consumers-first' | 'producers-first' | 'either' | 'new-urn';

export interface Rollout {
  order: RolloutOrder;
  /** One sentence for reports. */
  sentence: string;
}

const ROLLOUTS: Record<RolloutOrder, string> = {
  either:
    'Deploy in either order: data valid under the old schema is valid under the new one and the other way round.',
  'consumers-first':
    'Deploy consumers first: the new schema accepts what producers send today, while the old schema may reject what new producers send.',
  'producers-first':
    'Deploy producers first: consumers on the old schema accept what new producers send, while the new schema may reject data already in flight.',
  'new-urn':
    'Mint a new URN: no order is safe, since each schema rejects data valid under the other.',
};

/**
 * The deployment order a change allows. Backward-compatible (the new schema reads old data):
 * upgrade consumers first. Forward-compatible (the old schema reads new data): producers first.
 */
export function rolloutOrder(backwardCompatible: boolean, forwardCompatible: boolean): Rollout {
  const order: RolloutOrder = backwardCompatible
    ? forwardCompatible ? 'either' : 'consumers-first'
    : forwardCompatible ? 'producers-first' : 'new-urn';
  return { order, sentence: ROLLOUTS[order] };
}

export interface Assessment {
  backward: CompatResult;
  forward: CompatResult;
  rollout: Rollout;
}

/** Both directions of one schema change and the rollout order they allow (the policy applies to both). */
export function assessChange(oldSchema: unknown, newSchema: unknown, options: Omit<CompatOptions, 'mode'> = {}): Assessment {
  const backward = compareSchemas(oldSchema, newSchema, { ...options, mode: 'backward' });
  const forward = compareSchemas(oldSchema, newSchema, { ...options, mode: 'forward' });
  return { backward, forward, rollout: rolloutOrder(backward.compatible, forward.compatible) };
}
