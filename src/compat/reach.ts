import { shownName, type ServiceEntry } from '../registry/service-entries.js';
import type { ManifestEntry } from '../registry/manifest.js';
import type { Change } from './compare.js';
import type { ComparingLevel } from './levels.js';
import type { Breaks } from './rules.js';
import type { Rollout } from './rollout.js';

/*
 * Who a schema change reaches, from the manifest's producers and consumers of its URN. A change
 * that breaks backward (the new schema rejects data the old one accepted) breaks the consumers that
 * read with the new schema what producers still send; one that breaks forward (the old schema
 * rejects what the new one accepts) makes the producers' new data rejected by the consumers not yet
 * deployed. Pure data: compat's report says it in every format.
 */

/** The services a breaking change reaches: consumers it breaks, producers whose data old consumers reject. */
export type ChangeReach = NonNullable<Change['reach']>;

/** A URN's services as the manifest lists them. */
export interface UrnServices {
  producers: readonly string[];
  consumers: readonly string[];
}

/** One step of a deployment: a side and its services, in the order to deploy. */
type DeployStep = NonNullable<Rollout['deploy']>[number];

/** A URN's producers and consumers, or undefined when its entry names none. */
export function urnServices(entry: ManifestEntry | undefined): UrnServices | undefined {
  if (entry === undefined || (entry.producers === undefined && entry.consumers === undefined)) return undefined;
  return { producers: entry.producers ?? [], consumers: entry.consumers ?? [] };
}

/**
 * In which directions a breaking change breaks under `level`: the level's own for `backward` and
 * `forward`; for `full`, its rule's (`breaks`, under the policy in force), both when unknown.
 */
export function directions(level: ComparingLevel, breaks: Breaks | undefined): { backward: boolean; forward: boolean } {
  if (level === 'backward') return { backward: true, forward: false };
  if (level === 'forward') return { backward: false, forward: true };
  if (breaks === 'backward') return { backward: true, forward: false };
  if (breaks === 'forward') return { backward: false, forward: true };
  return { backward: true, forward: true };
}

/** The services a breaking change reaches, `breaks` its rule's directions (undefined for a compatible one, or when it reaches none). */
export function changeReach(
  change: Change,
  level: ComparingLevel,
  breaks: Breaks | undefined,
  services: UrnServices,
): ChangeReach | undefined {
  if (!change.breaking) return undefined;
  const d = directions(level, breaks);
  const reach: ChangeReach = {
    ...(d.backward && services.consumers.length > 0 ? { consumers: services.consumers } : {}),
    ...(d.forward && services.producers.length > 0 ? { producers: services.producers } : {}),
  };
  return reach.consumers === undefined && reach.producers === undefined ? undefined : reach;
}

/** `a`, `a and b`, `a, b and c`. */
function listWords(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** `consumer billing`, `consumers billing and shipping`: a name outside service syntax quoted, its invisible characters escaped. */
export function sideWords(role: 'consumers' | 'producers', names: readonly string[]): string {
  return `${names.length === 1 ? role.slice(0, -1) : role} ${listWords(names.map(shownName))}`;
}

/** A change's reach in words: `breaks consumers billing and shipping; old consumers reject the data of producer orders`. */
export function reachWords(r: ChangeReach): string {
  const parts: string[] = [];
  if (r.consumers) parts.push(`breaks ${sideWords('consumers', r.consumers)}`);
  if (r.producers) parts.push(`old consumers reject the data of ${sideWords('producers', r.producers)}`);
  return parts.join('; ');
}

/**
 * The rollout with the URN's services in the order it allows: consumers first (`deploy consumers
 * billing and shipping, then producer orders`), producers first, either, or, when no order is safe,
 * the new URN's consumers before its producers. Unchanged when the URN names no service.
 */
export function rolloutWithServices(rollout: Rollout, services: UrnServices | undefined): Rollout {
  if (services === undefined) return rollout;
  const consumers: DeployStep | undefined = services.consumers.length > 0 ? { role: 'consumers', services: services.consumers } : undefined;
  const producers: DeployStep | undefined = services.producers.length > 0 ? { role: 'producers', services: services.producers } : undefined;
  const first = rollout.order === 'producers-first' ? [producers, consumers] : [consumers, producers];
  const deploy = first.filter((s): s is DeployStep => s !== undefined);
  if (deploy.length === 0) return rollout;
  const words = deploy.map((s) => sideWords(s.role, s.services));
  let sentence: string;
  if (rollout.order === 'either') sentence = `deploy ${listWords(words)} in any order`;
  else if (rollout.order === 'new-urn') sentence = `under the new URN, deploy ${words.join(', then ')}`;
  else sentence = `deploy ${words.join(', then ')}`;
  return { ...rollout, sentence: `${rollout.sentence} Here: ${sentence}.`, deploy };
}

/** The teams to mention for the services a report reaches: each service's `team` that is a code host handle (`@org/team`, `@user`), once. */
export function teamsOf(names: Iterable<string>, services: readonly ServiceEntry[]): string[] {
  const byName = new Map(services.map((s) => [s.name, s]));
  const out: string[] = [];
  for (const name of names) {
    const team = byName.get(name)?.team;
    if (team !== undefined && isTeamHandle(team) && !out.includes(team)) out.push(team);
  }
  return out;
}

/** A GitHub-style handle: `@user` or `@org/team`, nothing a renderer could read as markup. */
function isTeamHandle(team: string): boolean {
  return /^@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\/[A-Za-z0-9][A-Za-z0-9._-]{0,99})?$/.test(team);
}
