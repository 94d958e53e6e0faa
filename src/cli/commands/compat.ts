import {
  compareRegistries, comparePair, remedyText,
  type Change, type CompatMode, type Remedy, type SchemaProblem, type UrnReport, type UrnStatus,
} from '../../compat/index.js';
import { loadRegistryAtRef, readSchemaFile, RegistryError, type Position, type SchemaDocument } from '../../registry/index.js';
import { EXIT_GATE, EXIT_OK, UsageError } from '../errors.js';
import { clean, githubCommand, makeChalk, Out } from '../output.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';
import { exitWhenStdoutCloses } from '../stdout.js';

export interface CompatCliOptions extends RegistryCliOptions {
  mode: CompatMode;
  against?: string;
  format: 'text' | 'json' | 'github' | 'markdown';
}

/** One schema document as the renderers need it: its name as shown, and its text for positions. */
interface Doc {
  name: string;
  text: string;
}

const noPositions = (): Position | undefined => undefined;
const where = (path: string): string => (path === '' ? '(root)' : path);

function usage(message: string): never {
  throw new UsageError(message);
}

/** Loads the positions module (and with it the YAML and JSONC parsers) only when a position is wanted. */
async function positionsFor(text: string, name: string): Promise<{ of(pointer: string): Position }> {
  const { SourcePositions } = await import('../../registry/positions.js');
  return SourcePositions.forFile(text, name);
}

const problemLine = (p: SchemaProblem): string => p.message;

// ---- rendering -----------------------------------------------------------------------------------

const changeMessage = (c: Change): string => `${where(c.path)}: ${c.message}`;

/** Backslash-escapes what markdown would read as markup; a table cell holds one line. */
function md(s: string): string {
  return clean(s.replace(/\r?\n/g, ' ')).replace(/[\\`*_[\]<>|~&]/g, (ch) => '\\' + ch);
}

/** A code span that survives a table cell: `|` escaped, backticks fenced by longer runs. */
function mdCode(s: string): string {
  const body = clean(s.replace(/\r?\n/g, ' ')).replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || body.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

function mdChange(c: Change): string {
  return `${c.breaking ? '**breaking**' : 'compatible'} ${mdCode(where(c.path))} ${md(c.message)} (${mdCode(c.rule)})`;
}

/** Where a change is in the NEW schema's source: the keyword, or its nearest ancestor there. */
type Locate = (pointer: string) => Position | undefined;

function githubChange(c: Change, file: string, locate: Locate, prefix: string, remedy: Remedy | undefined): string {
  const pos = locate(c.path);
  const title = `${c.breaking ? 'breaking' : 'compatible'} change (${c.rule})`;
  const tail = c.breaking && remedy ? `. Remedy: ${remedyText(remedy)}` : '';
  return githubCommand(c.breaking ? 'error' : 'notice', { file, line: pos?.line, col: pos?.col, title }, `${prefix}${changeMessage(c)}${tail}`);
}

async function locator(doc: Doc | undefined, wanted: boolean): Promise<Locate> {
  if (!wanted || doc === undefined) return noPositions;
  const positions = await positionsFor(doc.text, doc.name);
  return (pointer) => positions.of(pointer);
}

// ---- two schema files ----------------------------------------------------------------------------

async function compareFiles(oldFile: string, newFile: string, options: CompatCliOptions): Promise<number> {
  const load = (file: string, side: 'old' | 'new'): SchemaDocument | SchemaProblem => {
    try {
      return readSchemaFile(file);
    } catch (err) {
      if (err instanceof RegistryError) return { side, message: err.message };
      throw err;
    }
  };
  const older = load(oldFile, 'old');
  const newer = load(newFile, 'new');
  const unread = [older, newer].filter((d): d is SchemaProblem => 'side' in d);
  const result = unread.length > 0
    ? { compatible: false, changes: [] as Change[], problems: unread }
    : comparePair((older as SchemaDocument).value, (newer as SchemaDocument).value, options.mode);
  const { compatible, problems } = result;
  const changes = result.changes;
  const code = compatible ? EXIT_OK : EXIT_GATE;
  exitWhenStdoutCloses(() => code);
  const breakingChanges = changes.filter((c) => c.breaking).length;
  const remedy: Remedy | undefined = breakingChanges > 0 ? { kind: 'new-urn' } : undefined;
  const others = changes.length - breakingChanges;
  // File names come from the command line: escaped, so a name cannot forge the summary line.
  const span = `from ${clean(oldFile)} to ${clean(newFile)}`;
  const problemNote = problems.length > 0 ? `, ${problems.length} schema problem(s)` : '';
  const summary = compatible
    ? `OK: no breaking change ${span}: ${others} compatible change(s) (${options.mode})`
    : `FAILED: ${breakingChanges} breaking change(s)${problemNote} ${span}, ${others} compatible (${options.mode})`;
  const out = new Out();
  const c = makeChalk();
  const newDoc = 'side' in newer ? undefined : { name: newer.file.shown, text: newer.text };

  if (options.format === 'json') {
    out.line(JSON.stringify({
      ok: compatible, compatible, mode: options.mode,
      summary: { breaking: breakingChanges, compatible: others, errors: problems.length },
      changes, problems: problems.map(({ side, message, pointer, keyword }) => ({ side, message, pointer, keyword })),
      ...(remedy ? { remedy: remedyText(remedy) } : {}),
    }, null, 2));
  } else if (options.format === 'github') {
    for (const p of problems) out.line(githubCommand('error', { file: p.side === 'old' ? oldFile : newFile, title: 'schema problem' }, problemLine(p)));
    const locate = await locator(newDoc, changes.length > 0);
    for (const ch of changes) out.line(githubChange(ch, newFile, locate, '', remedy));
    out.line(clean(summary));
  } else if (options.format === 'markdown') {
    const files = `from ${mdCode(oldFile)} to ${mdCode(newFile)}`;
    const heading = compatible ? `no breaking change ${files}` : `${breakingChanges} breaking change(s)${problemNote} ${files}`;
    out.line(`### bqschema compat: ${heading}`);
    out.line();
    for (const p of problems) out.line(`- **error:** ${md(problemLine(p))}`);
    if (problems.length > 0) out.line();
    if (changes.length > 0) {
      out.line('| status | path | change |');
      out.line('| --- | --- | --- |');
      for (const ch of changes) {
        out.line(`| ${ch.breaking ? '**breaking**' : 'compatible'} | ${mdCode(where(ch.path))} | ${md(ch.message)} (${mdCode(ch.rule)}) |`);
      }
      out.line();
    } else if (problems.length === 0) {
      out.line('No change that affects validation.');
      out.line();
    }
    if (remedy) {
      out.line(`**Remedy:** ${remedyText(remedy, mdCode)}`);
      out.line();
    }
    out.line(`Mode: ${options.mode}. ${breakingChanges} breaking, ${others} compatible change(s).`);
  } else {
    for (const p of problems) out.line(`${c.red('error     ')}  ${clean(problemLine(p))}`);
    for (const ch of changes) {
      const label = ch.breaking ? c.red('breaking  ') : c.dim('compatible');
      out.line(`${label}  ${clean(where(ch.path))}  ${clean(ch.message)}  ${c.dim(`[${ch.rule}]`)}`);
    }
    if (remedy) out.line(`${c.yellow('→')} ${remedyText(remedy)}`);
    if (changes.length > 0 || problems.length > 0) out.line();
    out.line(compatible ? c.green(summary) : c.red(summary));
  }
  await out.flush();
  return code;
}

// ---- the registry against a git ref --------------------------------------------------------------

const MARK: Record<UrnStatus, string> = { breaking: '✗', invalid: '✗', removed: '-', compatible: '✓', added: '+', unchanged: '=' };
const mark = (r: UrnReport): string => (r.breaking ? '✗' : MARK[r.status]);

async function compareRegistry(ref: string, options: CompatCliOptions): Promise<number> {
  const current = openRegistry(options);
  const at = await loadRegistryAtRef(ref, { registry: current.manifest.path, allowOutsidePaths: options.allowOutsidePaths, strict: true });
  const base = at.registry?.requireUsable();
  const manifestPath = at.manifestPath;
  const reports = compareRegistries(base, current, options.mode);
  const compatible = reports.every((r) => !r.breaking);
  const code = compatible ? EXIT_OK : EXIT_GATE;
  exitWhenStdoutCloses(() => code);

  const count = (s: UrnStatus): number => reports.filter((r) => r.status === s).length;
  const summary = {
    breaking: count('breaking'), compatible: count('compatible'), added: count('added'), removed: count('removed'),
    unchanged: count('unchanged'), errors: count('invalid'),
  };
  const failing = reports.filter((r) => r.breaking).length;
  const commit = at.commit.slice(0, 12);
  const against = `${ref} (${commit})`;
  const invalidNote = summary.errors > 0 ? `, ${summary.errors} invalid` : '';
  const counts = `${summary.breaking} breaking, ${summary.compatible} compatible, ${summary.added} added, ${summary.removed} removed, ${summary.unchanged} unchanged${invalidNote}`;
  const verdict = compatible
    ? `OK: no breaking change against ${against}: ${counts} (${options.mode})`
    : `FAILED: ${failing} URN(s) fail against ${against}: ${counts} (${options.mode})`;
  const absent = base === undefined ? `${manifestPath} does not exist at ${ref}: every URN is added` : undefined;
  const listed = reports.filter((r) => r.status !== 'unchanged');
  const out = new Out();
  const c = makeChalk();
  const manifestName = current.manifest.shown;
  const docOf = (r: UrnReport): Doc | undefined => {
    if (r.file === undefined) return undefined;
    try {
      const d = current.document(r.urn);
      return { name: d.file.shown, text: d.text };
    } catch {
      return undefined;
    }
  };

  if (options.format === 'json') {
    const urns = reports.map((r) => ({
      urn: r.urn, status: r.status, breaking: r.breaking, changes: r.changes,
      ...(r.problems.length > 0 ? { problems: r.problems.map(({ side, message, pointer, keyword }) => ({ side, message, pointer, keyword })) } : {}),
      ...(r.deprecated ? { deprecated: true } : {}),
      ...(r.remedy ? { remedy: remedyText(r.remedy) } : {}),
    }));
    const atRef = { ref, commit: at.commit, registry: manifestPath, found: base !== undefined };
    out.line(JSON.stringify({ ok: compatible, compatible, mode: options.mode, against: atRef, summary, urns }, null, 2));
  } else if (options.format === 'github') {
    const manifest = await locator({ name: manifestName, text: current.manifestText }, true);
    if (absent) out.line(githubCommand('notice', { file: manifestName }, absent));
    for (const r of listed) {
      if (r.status === 'added' || r.status === 'removed') {
        // Both are about the manifest: the new entry, or the list the entry was removed from.
        const pos = manifest(r.status === 'added' ? `/schemas/${r.index}/urn` : '/schemas');
        const what = r.status === 'added' ? 'added' : r.deprecated ? 'removed (it was deprecated)' : 'removed';
        const tail = r.remedy ? `. Remedy: ${remedyText(r.remedy)}` : '';
        out.line(githubCommand(r.breaking ? 'error' : 'notice', { file: manifestName, ...pos, title: `URN ${r.status}` }, `${r.urn}: ${what}${tail}`));
        continue;
      }
      const doc = docOf(r);
      for (const p of r.problems) {
        out.line(githubCommand('error', { file: p.side === 'new' && doc ? doc.name : manifestName, title: 'schema problem' }, `${r.urn}: ${problemLine(p)}`));
      }
      const locate = await locator(doc, r.changes.length > 0);
      for (const ch of r.changes) out.line(githubChange(ch, doc?.name ?? manifestName, locate, `${r.urn}: `, r.remedy));
    }
    out.line(clean(verdict));
  } else if (options.format === 'markdown') {
    const heading = compatible ? 'no breaking change' : `${failing} URN(s) fail`;
    out.line(`### bqschema compat: ${heading} against ${mdCode(ref)}`);
    out.line();
    if (absent) {
      out.line(`${mdCode(manifestPath)} does not exist at ${mdCode(ref)}: every URN is added.`);
      out.line();
    }
    if (listed.length > 0) {
      out.line('| URN | status | changes |');
      out.line('| --- | --- | --- |');
      for (const r of listed) {
        const status = r.breaking ? `**${mark(r)} ${r.status}**` : `${mark(r)} ${r.status}${r.deprecated ? ' (deprecated)' : ''}`;
        const lines = [...r.problems.map((p) => `**error:** ${md(problemLine(p))}`), ...r.changes.map(mdChange)];
        if (r.status === 'compatible' && lines.length === 0) lines.push('annotations only: no change that affects validation');
        if (r.remedy) lines.push(`**Remedy:** ${remedyText(r.remedy, mdCode)}`);
        out.line(`| ${mdCode(r.urn)} | ${status} | ${lines.join('<br>')} |`);
      }
      out.line();
    } else {
      out.line('No URN changed.');
      out.line();
    }
    out.line(`${counts}; mode ${options.mode}; against ${mdCode(ref)} at ${mdCode(commit)}.`);
  } else {
    if (absent) out.line(c.yellow(clean(absent)));
    for (const r of listed) {
      const sign = r.breaking ? c.red(mark(r)) : r.status === 'compatible' ? c.green(mark(r)) : mark(r);
      const file = r.file ? `  ${c.dim(clean(r.file.shown))}` : '';
      out.line(`${sign} ${c.bold(clean(r.urn))}  ${r.status}${r.deprecated ? ' (deprecated)' : ''}${file}`);
      for (const p of r.problems) out.line(`    ${c.red('error     ')}  ${clean(problemLine(p))}`);
      for (const ch of r.changes) {
        const label = ch.breaking ? c.red('breaking  ') : c.dim('compatible');
        out.line(`    ${label}  ${clean(where(ch.path))}  ${clean(ch.message)}  ${c.dim(`[${ch.rule}]`)}`);
      }
      if (r.status === 'compatible' && r.changes.length === 0) out.line(`    ${c.dim('annotations only: no change that affects validation')}`);
      if (r.remedy) out.line(`    ${c.yellow('→')} ${clean(remedyText(r.remedy))}`);
    }
    if (listed.length > 0 || absent) out.line();
    out.line(compatible ? c.green(clean(verdict)) : c.red(clean(verdict)));
  }
  await out.flush();
  return code;
}

/** `bqschema compat OLD NEW`, or `bqschema compat --against REF` for the whole registry. */
export async function run(oldFile: string | undefined, newFile: string | undefined, options: CompatCliOptions): Promise<number> {
  if (options.against !== undefined) {
    if (oldFile !== undefined) usage('give either two schema files (OLD NEW) or --against REF for the registry, not both');
    return compareRegistry(options.against, options);
  }
  if (oldFile === undefined) usage('compat needs two schema files (OLD NEW), or --against REF to compare the registry with a git ref');
  if (newFile === undefined) usage(`compat needs the new schema file too: bqschema compat ${oldFile} NEW`);
  return compareFiles(oldFile, newFile, options);
}

