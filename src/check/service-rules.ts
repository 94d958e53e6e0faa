import type { Registry } from '../registry/registry.js';
import { closest } from '../registry/suggest.js';
import { quoteName, serviceKey, PEER_KEYS } from '../registry/service-entries.js';

/*
 * What `check` says about the manifest's services and each URN's producers and consumers: a name
 * that is no declared service (an error: compat would leave that service out of a change's reach),
 * a service no URN names, a URN its consumers wait on that no service produces, and a URN nothing
 * produces that is still live. The last three only once the manifest declares `services`: a
 * registry that has not started naming its services is not warned about each URN.
 */

/** The rules `check` cites for them (its rules table, src/check/report.ts, describes each). */
export type ServiceRule = 'unknown-service' | 'unused-service' | 'consumers-without-producer' | 'no-producer';

/** One issue, as `check` reports it (a CheckIssue of the manifest). */
export interface ServiceIssue {
  rule: ServiceRule;
  urn?: string;
  /** The manifest, as shown. */
  file: string;
  pointer: string;
  message: string;
  /** For an unknown service: the declared service it most likely means. */
  suggestion?: string;
  line: number;
  col: number;
}

/** The issues, errors and warnings apart, each at its place in the manifest. */
export function serviceIssues(registry: Registry): { errors: ServiceIssue[]; warnings: ServiceIssue[] } {
  const file = registry.manifest.shown;
  const errors: ServiceIssue[] = [];
  const warnings: ServiceIssue[] = [];
  const at = (pointer: string): { pointer: string; line: number; col: number } => ({ pointer, ...registry.manifestPosition(pointer) });
  const declared = new Map(registry.services.map((s) => [s.name, s]));
  const names = registry.services.map((s) => s.name);
  const used = new Set<string>();
  for (const entry of registry.entries) {
    for (const key of PEER_KEYS) {
      (entry[key] ?? []).forEach((name, i) => {
        if (declared.has(name)) {
          used.add(name);
          return;
        }
        // The same name in another case is the one meant; else the nearest by edits.
        const folded = names.find((n) => serviceKey(n) === serviceKey(name)) ?? closest(name, names);
        const hint = folded === undefined ? '' : ` (did you mean ${quoteName(folded)}?)`;
        const fix =
          names.length === 0
            ? 'declare it in the manifest\'s "services"'
            : 'fix the name, or declare the service in the manifest\'s "services"';
        errors.push({
          rule: 'unknown-service',
          urn: entry.urn,
          file,
          ...at(`/schemas/${entry.index}/${key}/${i}`),
          message: `${key} lists ${quoteName(name)}, which is no service of the manifest${hint}; ${fix}`,
          ...(folded === undefined ? {} : { suggestion: folded }),
        });
      });
    }
  }
  if (registry.services.length === 0) return { errors, warnings };
  for (const s of registry.services) {
    if (used.has(s.name)) continue;
    warnings.push({
      rule: 'unused-service',
      file,
      ...at(`/services/${s.index}/name`),
      message: `service ${quoteName(s.name)} produces and consumes nothing: name it in the "producers" or "consumers" of the URNs it sends or reads, or remove it`,
    });
  }
  for (const entry of registry.entries) {
    const producers = entry.producers ?? [];
    const consumers = entry.consumers ?? [];
    if (producers.length > 0) continue;
    const pointer = `/schemas/${entry.index}/${entry.producers === undefined ? 'urn' : 'producers'}`;
    if (consumers.length > 0) {
      warnings.push({
        rule: 'consumers-without-producer',
        urn: entry.urn,
        file,
        ...at(pointer),
        message: `${consumers.length === 1 ? 'consumer' : 'consumers'} ${consumers.map(quoteName).join(', ')} ${consumers.length === 1 ? 'reads' : 'read'} it, but no service produces it: name its producers, or move the consumers off it`,
      });
    } else if (entry.status !== 'deprecated') {
      warnings.push({
        rule: 'no-producer',
        urn: entry.urn,
        file,
        ...at(pointer),
        message: 'no service produces or consumes it: name its producers and consumers, or mark it "status": "deprecated" on its way out',
      });
    }
  }
  return { errors, warnings };
}
