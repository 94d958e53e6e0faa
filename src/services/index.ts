import type { Registry } from '../registry/registry.js';
import { sensitivePaths, type SensitivePath } from '../validator/sensitive-paths.js';

/*
 * The registry seen from its services (`bqschema services`): per service what it produces and
 * consumes, and the personal data (fields marked x-gdpr-sensitive, as gdpr's inventory finds
 * them) it handles; and CODEOWNERS lines that make each schema file's producing team its owner.
 * Pure: the CLI reads the schemas and renders.
 */

/** A personal field a service handles: the URN and the field's path (gdpr's path syntax) and category. */
interface HandledField extends SensitivePath {
  urn: string;
}

export interface ServiceView {
  name: string;
  team?: string;
  contact?: string;
  repository?: string;
  /** False for a name a URN lists that the manifest's `services` does not declare (check reports it). */
  declared: boolean;
  produces: string[];
  consumes: string[];
  /** The personal fields of every URN it produces or consumes, by URN then path. */
  pii: HandledField[];
}

/** Each URN's schema, as the caller read it (gdpr's LoadedSchema carries more). */
export interface SchemaOf {
  urn: string;
  schema: unknown;
}

/** What the roster of services is read from: the manifest's `services` and each entry's `producers` and `consumers`. */
export interface ServiceSource {
  services: readonly { name: string; team?: string; contact?: string; repository?: string }[];
  entries: readonly { urn: string; producers?: readonly string[]; consumers?: readonly string[] }[];
}

/**
 * Every service: the declared ones in the manifest's order, then the names URNs list that no
 * service declares (nothing a manifest says is dropped), each with the URNs it produces and
 * consumes in the manifest's order. Its `pii` is left empty: servicesView fills it from schemas,
 * the catalog from the fields it shows.
 */
export function serviceRoster(registry: ServiceSource): ServiceView[] {
  const views = new Map<string, ServiceView>();
  for (const s of registry.services) {
    views.set(s.name, { name: s.name, ...pick(s), declared: true, produces: [], consumes: [], pii: [] });
  }
  const view = (name: string): ServiceView => {
    let v = views.get(name);
    if (v === undefined) {
      v = { name, declared: false, produces: [], consumes: [], pii: [] };
      views.set(name, v);
    }
    return v;
  };
  for (const entry of registry.entries) {
    for (const name of entry.producers ?? []) view(name).produces.push(entry.urn);
    for (const name of entry.consumers ?? []) view(name).consumes.push(entry.urn);
  }
  return [...views.values()];
}

/** serviceRoster with the personal data each service handles: the x-gdpr-sensitive fields of every URN it produces or consumes. */
export function servicesView(registry: Registry, schemas: readonly SchemaOf[]): ServiceView[] {
  const views = serviceRoster(registry);
  const fields = new Map(schemas.map((s) => [s.urn, sensitivePaths(s.schema)]));
  for (const v of views) {
    const urns = registry.urns().filter((u) => v.produces.includes(u) || v.consumes.includes(u));
    v.pii = urns.flatMap((urn) => (fields.get(urn) ?? []).map((f) => ({ urn, ...f })));
  }
  return views;
}

function pick(s: { team?: string; contact?: string; repository?: string }): Pick<ServiceView, 'team' | 'contact' | 'repository'> {
  return {
    ...(s.team === undefined ? {} : { team: s.team }),
    ...(s.contact === undefined ? {} : { contact: s.contact }),
    ...(s.repository === undefined ? {} : { repository: s.repository }),
  };
}

/** An owner CODEOWNERS takes: a code-host handle (`@org/team`, `@user`: compat's isTeamHandle) or an e-mail address. */
function isCodeOwner(owner: string): boolean {
  return (
    /^@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\/[A-Za-z0-9][A-Za-z0-9._-]{0,99})?$/.test(owner) ||
    /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/.test(owner)
  );
}

/** A CODEOWNERS line's path can hold it: no control character, no `#`, `!`, `[`, `]` or `\`, no leading or trailing space. */
const OWNABLE_PATH = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029#!\\[\]]+$/;

export interface CodeownersLine {
  /** The schema file from the repository's top level (`/`-separated, no leading slash). */
  file: string;
  urn: string;
  owners: string[];
}

/** Why a CODEOWNERS line cannot be written: the caller makes it a one-line error naming the service or file. */
export class CodeownersError extends Error {
  override name = 'CodeownersError';
}

/**
 * The owners of each URN's schema file: the teams of its producers (the services that decide what
 * it says), and with `consumersReview` its consumers' teams too, each once. A URN no team owns is
 * listed with none (the file says so in a comment, rather than leaving it out). A team CODEOWNERS
 * cannot name, or a path it cannot hold, is an error: a silently dropped owner would let a change
 * pass review unseen.
 */
export function codeownersLines(registry: Registry, fileOf: (urn: string) => string, consumersReview: boolean): CodeownersLine[] {
  const byName = new Map(registry.services.map((s) => [s.name, s]));
  return registry.entries.map((entry) => {
    const names = [...(entry.producers ?? []), ...(consumersReview ? (entry.consumers ?? []) : [])];
    const owners: string[] = [];
    for (const name of names) {
      const team = byName.get(name)?.team;
      if (team === undefined) continue;
      if (!isCodeOwner(team)) {
        throw new CodeownersError(
          `service ${JSON.stringify(name)}: team ${JSON.stringify(team.slice(0, 60))} is not a code-host handle (@org/team, @user) or an e-mail address, so CODEOWNERS cannot name it; fix its "team"`,
        );
      }
      if (!owners.includes(team)) owners.push(team);
    }
    const file = fileOf(entry.urn);
    if (!OWNABLE_PATH.test(file) || file !== file.trim()) {
      throw new CodeownersError(
        `${entry.urn}: the schema file ${JSON.stringify(file)} has characters a CODEOWNERS path cannot hold (a control character, #, !, [, ], \\ or surrounding spaces); rename it`,
      );
    }
    return { file, urn: entry.urn, owners };
  });
}

/** The CODEOWNERS text: a header, and per URN its file (spaces escaped) and owners, or a comment when no team owns it. */
export function codeownersText(lines: readonly CodeownersLine[], command: string, consumersReview: boolean): string {
  const whose = consumersReview ? "the teams of each URN's producers, then of its consumers" : "the teams of each URN's producers";
  const out = [
    `# Schema owners, written by ${command}: ${whose}.`,
    "# Regenerate it after changing the registry's services, producers or consumers.",
  ];
  for (const l of lines) {
    const path = `/${l.file.replace(/ /g, '\\ ')}`;
    out.push(
      l.owners.length === 0 ? `# ${path}: no service with a team produces ${JSON.stringify(l.urn)}` : `${path} ${l.owners.join(' ')}`,
    );
  }
  return out.join('\n') + '\n';
}
