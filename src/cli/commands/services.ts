import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { shownName, visibleText } from '../../registry/service-entries.js';
import type { Registry } from '../../registry/registry.js';
import { codeownersLines, codeownersText, CodeownersError, servicesView, type SchemaOf, type ServiceView } from '../../services/index.js';
import { md, mdCode } from '../../report/markdown.js';
import { GateError, UsageError } from '../errors.js';
import type { OwnerlessService } from '../../gdpr/report.js';
import { clean, printDocument } from '../output.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';
import { claimTarget, writeFileAtomic } from '../write.js';

/*
 * `bqschema services`: per service what it produces and consumes and the personal data it handles,
 * in text, JSON or markdown; `--format codeowners` writes CODEOWNERS lines for the schema files.
 */

export type ServicesFormat = 'text' | 'json' | 'markdown' | 'codeowners';

export interface ServicesOptions extends RegistryCliOptions {
  format: ServicesFormat;
  /** `-o`: write to this file (atomically) instead of stdout. */
  output?: string;
  /** With codeowners: the consumers' teams review a schema file too. */
  consumersReview?: boolean;
}

/** The top of the git work tree the manifest is in, else the manifest's directory: CODEOWNERS paths start there. */
function repositoryRoot(manifest: string): string {
  const start = dirname(resolve(manifest));
  for (let d = start; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return start;
  }
}

const fromRoot = (root: string, file: string): string => {
  const rel = relative(root, resolve(file));
  return sep === '/' ? rel : rel.split(sep).join('/');
};

/** A service's personal fields by URN: `urn  path (category), …`. */
function piiByUrn(v: ServiceView): Array<{ urn: string; fields: string }> {
  const out: Array<{ urn: string; fields: string[] }> = [];
  for (const f of v.pii) {
    const last = out.at(-1);
    const field = `${f.path === '' ? '(root)' : f.path}${f.category === '' ? '' : ` (${f.category})`}`;
    if (last !== undefined && last.urn === f.urn) last.fields.push(field);
    else out.push({ urn: f.urn, fields: [field] });
  }
  return out.map((g) => ({ urn: g.urn, fields: g.fields.join(', ') }));
}

function renderText(views: readonly ServiceView[]): string {
  const lines: string[] = [];
  for (const v of views) {
    const about = [v.team, v.contact, v.repository].filter((x): x is string => x !== undefined).map(visibleText);
    lines.push([clean(shownName(v.name)), ...about, ...(v.declared ? [] : ['(not declared in "services")'])].join('  '));
    lines.push(`  produces  ${v.produces.length === 0 ? '-' : v.produces.map(clean).join(', ')}`);
    lines.push(`  consumes  ${v.consumes.length === 0 ? '-' : v.consumes.map(clean).join(', ')}`);
    const pii = piiByUrn(v);
    if (pii.length === 0) lines.push('  personal data  none');
    else {
      lines.push('  personal data');
      for (const g of pii) lines.push(`    ${clean(g.urn)}  ${clean(g.fields)}`);
    }
  }
  const handling = views.filter((v) => v.pii.length > 0).length;
  lines.push('', `${views.length} service(s), ${handling} handling personal data`);
  return lines.join('\n') + '\n';
}

function renderMarkdown(views: readonly ServiceView[]): string {
  const cell = (xs: readonly string[]): string => (xs.length === 0 ? '' : xs.map((x) => mdCode(x)).join('<br>'));
  const rows = views.map(
    (v) =>
      `| ${mdCode(shownName(v.name))}${v.declared ? '' : ' (not declared)'} | ${md(visibleText(v.team ?? ''))} | ${md(visibleText(v.contact ?? ''))} | ${cell(v.produces)} | ${cell(v.consumes)} | ${piiByUrn(
        v,
      )
        .map((g) => `${mdCode(g.urn)}: ${md(g.fields)}`)
        .join('<br>')} |`,
  );
  return (
    [
      '### bqschema services',
      '',
      '| service | team | contact | produces | consumes | personal data |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n') + '\n'
  );
}

function renderJson(views: readonly ServiceView[]): string {
  return JSON.stringify({ services: views }, null, 2) + '\n';
}

function codeowners(registry: Registry, options: ServicesOptions): string {
  const root = repositoryRoot(registry.manifest.path);
  try {
    const lines = codeownersLines(registry, (urn) => fromRoot(root, registry.file(urn).path), options.consumersReview === true);
    return codeownersText(
      lines,
      `bqschema services --format codeowners${options.consumersReview ? ' --consumers-review' : ''}`,
      options.consumersReview === true,
    );
  } catch (err) {
    if (err instanceof CodeownersError) throw new GateError(clean(`${registry.manifest.shown}: ${err.message}`));
    throw err;
  }
}

/** `gdpr --require`'s services that handle personal data without a team or a contact, at their manifest entries. */
export function ownerless(registry: Registry, schemas: readonly SchemaOf[]): OwnerlessService[] {
  return servicesView(registry, schemas)
    .filter((v) => v.declared && v.pii.length > 0 && (v.team === undefined || v.contact === undefined))
    .map((v) => {
      const index = registry.services.find((s) => s.name === v.name)!.index;
      const pointer = `/services/${index}/name`;
      const missing = [...(v.team === undefined ? ['team' as const] : []), ...(v.contact === undefined ? ['contact' as const] : [])];
      return {
        service: v.name,
        missing,
        urns: [...new Set(v.pii.map((f) => f.urn))],
        file: registry.manifest.shown,
        pointer,
        ...registry.manifestPosition(pointer),
      };
    });
}

/**
 * `gdpr --by-service`: which services handle which personal fields (those of the URNs they produce
 * or consume), in text, JSON or markdown; a service that handles none is left out, and counted.
 */
export async function byService(registry: Registry, schemas: readonly SchemaOf[], format: string): Promise<number> {
  const all = servicesView(registry, schemas);
  const handling = all.filter((v) => v.pii.length > 0);
  let text: string;
  if (format === 'json')
    text =
      JSON.stringify(
        { services: handling.map(({ name, team, contact, declared, pii }) => ({ name, team, contact, declared, pii })) },
        null,
        2,
      ) + '\n';
  else if (format === 'markdown') {
    const rows = handling.map(
      (v) =>
        `| ${mdCode(shownName(v.name))} | ${md(visibleText(v.team ?? ''))} | ${md(visibleText(v.contact ?? ''))} | ${piiByUrn(v)
          .map((g) => `${mdCode(g.urn)}: ${md(g.fields)}`)
          .join('<br>')} |`,
    );
    text =
      ['### bqschema gdpr --by-service', '', '| service | team | contact | personal data |', '| --- | --- | --- | --- |', ...rows].join(
        '\n',
      ) + '\n';
  } else {
    const lines: string[] = [];
    for (const v of handling) {
      const about = [v.team ?? '(no team)', v.contact ?? '(no contact)'].map(visibleText);
      lines.push([clean(shownName(v.name)), ...about].join('  '));
      for (const g of piiByUrn(v)) lines.push(`    ${clean(g.urn)}  ${clean(g.fields)}`);
    }
    lines.push('', `${handling.length} of ${all.length} service(s) handle personal data`);
    text = lines.join('\n') + '\n';
  }
  return printDocument(text);
}

export async function run(options: ServicesOptions): Promise<number> {
  if (options.consumersReview && options.format !== 'codeowners') throw new UsageError('--consumers-review applies to --format codeowners');
  const registry = openRegistry(options);
  // Checked before anything is read: a file this run reads is never the output.
  if (options.output !== undefined) claimTarget(options.output, '-o');
  let text: string;
  if (options.format === 'codeowners') text = codeowners(registry, options);
  else {
    // A schema that cannot be read is a RegistryError: one line, exit 1, as gdpr's inventory.
    const views = servicesView(
      registry,
      registry.entries.map((e) => ({ urn: e.urn, schema: registry.document(e.urn).value })),
    );
    text = options.format === 'json' ? renderJson(views) : options.format === 'markdown' ? renderMarkdown(views) : renderText(views);
  }
  if (options.output === undefined) return printDocument(text);
  writeFileAtomic(options.output, text);
  process.stdout.write(`Wrote ${clean(options.output)}: ${options.format}, ${registry.services.length} service(s)\n`);
  return 0;
}
