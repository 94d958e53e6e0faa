import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { expect } from 'vitest';

/** Reading the CI formats a command printed: SARIF checked against the vendored 2.1.0 schema, JUnit with an XML reader. */

const require = createRequire(import.meta.url);
const Ajv04 = require('ajv-draft-04') as new (o: object) => { compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown } };
const addFormats = require('ajv-formats') as (ajv: unknown) => void;
const schema = JSON.parse(readFileSync(new URL('../vendor/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8'));
const ajv = new Ajv04({ allErrors: true, strict: false });
addFormats(ajv);
const validateSarif = ajv.compile(schema);

export interface SarifResult {
  ruleId: string;
  level: string;
  message: { text: string };
  locations?: Array<{ physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number; startColumn?: number } } }>;
}

export interface SarifLog {
  version: string;
  runs: Array<{ tool: { driver: { name: string; version: string; rules: Array<{ id: string }> } }; results: SarifResult[] }>;
}

export function readSarif(text: string): SarifLog {
  const log = JSON.parse(text);
  expect(validateSarif(log), JSON.stringify(validateSarif.errors, null, 2)).toBe(true);
  return log as SarifLog;
}

/** A result's place as `uri:line:col` (parts left out when absent). */
export function sarifAt(r: SarifResult): string {
  const loc = r.locations?.[0]?.physicalLocation;
  if (loc === undefined) return '';
  const reg = loc.region;
  return `${loc.artifactLocation.uri}${reg ? `:${reg.startLine}` : ''}${reg?.startColumn ? `:${reg.startColumn}` : ''}`;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  htmlEntities: true,
  isArray: (name) => name === 'testsuite' || name === 'testcase',
  // <skipped/> with no text parses as '' without this; as an object it has its attributes.
  alwaysCreateTextNode: false,
});

type Detail = { message: string; type: string; '#text'?: string };
export interface JunitCase {
  name: string;
  classname: string;
  time: string;
  file?: string;
  line?: string;
  failure?: Detail;
  error?: Detail;
  skipped?: Detail;
  'system-out'?: string;
}
interface JunitSuite {
  name: string;
  tests: string;
  failures: string;
  errors: string;
  skipped: string;
  time: string;
  file?: string;
  testcase?: JunitCase[];
}
export interface JunitDoc {
  testsuites: { name: string; tests: string; failures: string; errors: string; skipped: string; time: string; testsuite?: JunitSuite[] };
}

const XSD = fileURLToPath(new URL('../vendor/junit/junit-10.xsd', import.meta.url));

/**
 * junit-10.xsd, unchanged but for the attributes reporters read that it does not declare, which
 * bqschema writes: the root's `skipped` (without it, a reporter that counts from the root counts a
 * skipped test as passed) and each test case's `file` and `line` (where an annotating reporter
 * places it), each inserted where its element's attributes are.
 */
function locatedXsd(): string {
  const text = readFileSync(XSD, 'utf8');
  const insert = (s: string, after: string, what: string): string => {
    const at = s.indexOf(after);
    if (at === -1 || s.indexOf(after, at + 1) !== -1) throw new Error(`junit-10.xsd changed: ${after} is no longer found once`);
    return s.slice(0, at + after.length) + what + s.slice(at + after.length);
  };
  let xsd = insert(
    text,
    '<xs:attribute name="classname" type="xs:string"/>',
    '<xs:attribute name="file" type="xs:string"/><xs:attribute name="line" type="xs:positiveInteger"/>',
  );
  xsd = insert(xsd, '<xs:attribute name="errors" type="xs:string" />', '<xs:attribute name="skipped" type="xs:nonNegativeInteger"/>');
  const file = join(mkdtempSync(join(tmpdir(), 'bq-junit-xsd-')), 'junit-10-located.xsd');
  writeFileSync(file, xsd);
  return file;
}
let located: string | undefined;

/**
 * Checks a JUnit document with xmllint (Debian's libxml2-utils: a missing xmllint fails the test,
 * naming the package) against the schema the Jenkins xUnit plugin validates reports with, with
 * the three attributes it does not declare (UNDECLARED_JUNIT_ATTRIBUTES) added to it; `exact`:
 * against junit-10.xsd as it is.
 */
export function junitSchemaErrors(xml: string, exact = false): string {
  const xsd = exact ? XSD : (located ??= locatedXsd());
  const r = spawnSync('xmllint', ['--noout', '--schema', xsd, '-'], { input: xml, encoding: 'utf8' });
  if (r.error)
    throw new Error(`xmllint is needed to check JUnit output against its schema: apt-get install libxml2-utils (${r.error.message})`);
  return r.status === 0 ? '' : r.stderr;
}

export function readJunit(xml: string): JunitDoc {
  expect(XMLValidator.validate(xml)).toBe(true);
  expect(junitSchemaErrors(xml)).toBe('');
  const doc = parser.parse(xml) as JunitDoc;
  // Counts add up: each suite's attributes are its test cases', the report's the suites' sums.
  let tests = 0,
    failures = 0,
    errors = 0,
    skipped = 0;
  for (const s of doc.testsuites.testsuite ?? []) {
    const cases = s.testcase ?? [];
    expect([s.tests, s.failures, s.errors, s.skipped].map(Number)).toEqual([
      cases.length,
      cases.filter((c) => c.failure).length,
      cases.filter((c) => c.error).length,
      cases.filter((c) => c.skipped).length,
    ]);
    tests += cases.length;
    failures += Number(s.failures);
    errors += Number(s.errors);
    skipped += Number(s.skipped);
  }
  expect([doc.testsuites.tests, doc.testsuites.failures, doc.testsuites.errors, doc.testsuites.skipped].map(Number)).toEqual([
    tests,
    failures,
    errors,
    skipped,
  ]);
  return doc;
}

/** The JUnit counts a test reporter shows, to compare with a command's summary. */
export function junitCounts(doc: JunitDoc): { tests: number; failures: number; errors: number; skipped: number } {
  const t = doc.testsuites;
  return { tests: Number(t.tests), failures: Number(t.failures), errors: Number(t.errors), skipped: Number(t.skipped) };
}

/** The same document with its run-dependent `time` attributes taken out. */
export const withoutTimes = (xml: string): string => xml.replace(/ time="[0-9.]+"/g, '');

export const junitCases = (doc: JunitDoc): JunitCase[] => (doc.testsuites.testsuite ?? []).flatMap((s) => s.testcase ?? []);

/** One finding as both github and SARIF carry it, to compare the two one to one. */
export interface Said {
  level: 'error' | 'warning' | 'notice';
  file?: string;
  line?: number;
  col?: number;
  message: string;
}

// Property values carry no `:` (escaped as %3A), so the first `::` after the level ends them.
const GH = /^::(error|warning|notice)(?: ([^:]*))?::(.*)$/s;
const unescapeGh = (s: string): string =>
  s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');

/**
 * A github log read as the runner reads it: each workflow command an annotation (properties split
 * on `,` and `=`, then unescaped), and the last line, the summary. A line that is neither fails.
 */
export function readGithub(text: string): { annotations: Array<Said & { title?: string }>; summary: string } {
  const lines = text.replace(/\n$/, '').split('\n');
  const summary = lines.pop()!;
  const annotations = lines.map((l) => {
    const m = GH.exec(l);
    expect(m, `not a workflow command: ${l}`).not.toBeNull();
    const props = new Map(
      (m![2] ?? '')
        .split(',')
        .filter((p) => p !== '')
        .map((p) => {
          const i = p.indexOf('=');
          return [p.slice(0, i), unescapeGh(p.slice(i + 1))] as const;
        }),
    );
    const num = (k: string): number | undefined => (props.has(k) ? Number(props.get(k)) : undefined);
    return {
      level: m![1] as Said['level'],
      message: unescapeGh(m![3]!),
      ...(props.has('file') ? { file: props.get('file') } : {}),
      ...(props.has('line') ? { line: num('line') } : {}),
      ...(props.has('col') ? { col: num('col') } : {}),
      ...(props.has('title') ? { title: props.get('title') } : {}),
    };
  });
  return { annotations, summary };
}

/** A SARIF result as github would show it: its level (note is notice), file (URI decoded), line, column and message. */
export function sarifSaid(r: SarifResult): Said {
  const loc = r.locations?.[0]?.physicalLocation;
  const uri = loc?.artifactLocation.uri;
  const file =
    uri === undefined
      ? undefined
      : (uri.startsWith('file://') ? uri.slice('file://'.length) : uri).split('/').map(decodeURIComponent).join('/');
  return {
    level: r.level === 'note' ? 'notice' : (r.level as Said['level']),
    message: r.message.text,
    ...(file === undefined ? {} : { file }),
    ...(loc?.region ? { line: loc.region.startLine } : {}),
    ...(loc?.region?.startColumn === undefined ? {} : { col: loc.region.startColumn }),
  };
}

/** A notification of a SARIF run: a finding about no file (code scanning rejects a result without a location), or a note of the run. */
export interface SarifNotification {
  level: string;
  message: { text: string };
  associatedRule?: { id: string; index: number };
  properties?: Record<string, unknown>;
}

/** The run's notifications (none: an empty list). */
export function sarifNotifications(run: unknown): SarifNotification[] {
  const r = run as { invocations?: Array<{ toolExecutionNotifications?: SarifNotification[] }> };
  return (r.invocations ?? []).flatMap((i) => i.toolExecutionNotifications ?? []);
}

/** A notification as github would show the finding: its level and message (it has no place). */
const notificationSaid = (n: SarifNotification): Said => ({
  level: n.level === 'note' ? 'notice' : (n.level as Said['level']),
  message: n.message.text,
});

/**
 * What SARIF says of each finding, in the findings' order: a result for one about a file, a
 * notification for one about none (`located` tells which each finding is).
 */
export function sarifInOrder(
  run: unknown,
  located: readonly boolean[],
): Array<{ said: Said; ruleId: string; properties?: Record<string, unknown> }> {
  const results = [...(run as { results: Array<SarifResult & { properties?: Record<string, unknown> }> }).results];
  const notes = sarifNotifications(run);
  return located.map((l) => {
    if (l) {
      const r = results.shift()!;
      return { said: sarifSaid(r), ruleId: r.ruleId, ...(r.properties ? { properties: r.properties } : {}) };
    }
    const n = notes.shift()!;
    return { said: notificationSaid(n), ruleId: n.associatedRule?.id ?? '', ...(n.properties ? { properties: n.properties } : {}) };
  });
}

/** An annotation as SARIF places it: a finding about a whole file is at its first line there. */
export const asSarifPlaces = ({ title: _title, ...a }: Said & { title?: string }): Said =>
  a.file !== undefined && a.line === undefined ? { ...a, line: 1 } : a;

/** A markdown-it token (block or inline). */
interface MdToken {
  type: string;
  tag: string;
  content: string;
  hidden: boolean;
  children: MdToken[] | null;
}

// markdown-it reads CommonMark and GitHub's tables as cmark-gfm does (marked 9 does not: an escaped
// backtick before a code span hides the strong text between them); html on, as GitHub allows `<br>`.
const markdownIt = (): { parse(s: string, env: object): MdToken[] } => {
  const MarkdownIt = require('markdown-it') as new (o: object) => { parse(s: string, env: object): MdToken[] };
  return new MarkdownIt({ html: true });
};

/** An inline token's text as a reader sees it: escapes and entities undone, code spans as their text, `<br>` a newline, strong and emphasis as their words. */
function mdText(t: MdToken | undefined): string {
  return (t?.children ?? [])
    .map((c) => {
      if (c.type === 'html_inline') return /^<br\s*\/?>$/i.test(c.content) ? '\n' : c.content;
      if (c.type === 'softbreak' || c.type === 'hardbreak') return '\n';
      return c.type === 'text' || c.type === 'code_inline' ? c.content : '';
    })
    .join('');
}

/**
 * The raw HTML a markdown document holds that is not its own: every html_inline or html_block token
 * markdown-it (html on, as GitHub's renderer allows HTML) reads, but the `<br>` line breaks in cells
 * and the empty comment `<!-- -->` between two lists that the renderers write themselves. Input that
 * became markup (`<script>`, `<img …>`, a `<!--` that hides the rest) shows here; the readers above
 * would give its text back unchanged and could not tell.
 */
export function liveHtml(text: string): string[] {
  const out: string[] = [];
  const walk = (tokens: readonly MdToken[]): void => {
    for (const t of tokens) {
      if (t.type === 'html_inline' && !/^<br>$/.test(t.content)) out.push(t.content);
      if (t.type === 'html_block' && t.content !== '<!-- -->\n') out.push(t.content);
      if (t.children !== null) walk(t.children);
    }
  };
  walk(markdownIt().parse(text, {}));
  return out;
}

/** A markdown block as a reader sees it: a heading, a paragraph, a list's items or a table's cells, as plain text. */
export type ReadBlock =
  | { kind: 'heading' | 'paragraph'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; header: string[]; rows: string[][] };

/** Every top-level block of a markdown document, in order, read with markdown-it. */
export function readBlocks(text: string): ReadBlock[] {
  const tokens = markdownIt().parse(text, {});
  const out: ReadBlock[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type === 'heading_open' || t.type === 'paragraph_open') {
      out.push({ kind: t.type === 'heading_open' ? 'heading' : 'paragraph', text: mdText(tokens[i + 1]) });
      i += 2;
    } else if (t.type === 'bullet_list_open' || t.type === 'ordered_list_open') {
      const items: string[] = [];
      const close = t.type.replace('_open', '_close');
      for (i++; tokens[i]!.type !== close || tokens[i]!.tag !== t.tag; i++) {
        // Nested lists would read as more items: the documents we write have none.
        if (tokens[i]!.type === 'inline') items.push(mdText(tokens[i]));
      }
      out.push({ kind: 'list', items });
    } else if (t.type === 'table_open') {
      const rows: string[][] = [];
      let header: string[] = [];
      for (i++; tokens[i]!.type !== 'table_close'; i++) {
        const k = tokens[i]!.type;
        if (k === 'tr_open') rows.push([]);
        if (k === 'inline') rows.at(-1)!.push(mdText(tokens[i]));
        if (k === 'thead_close') header = rows.pop() ?? [];
      }
      out.push({ kind: 'table', header, rows });
    } else if (t.type === 'html_block' && /^<!--.*-->\s*$/s.test(t.content)) {
      // A comment: a reader sees nothing.
    } else {
      out.push({ kind: 'paragraph', text: `unexpected ${t.type}: ${t.content}` });
    }
  }
  return out;
}

/**
 * A markdown document as a reader sees it: its first heading's text, its first table's rows (each
 * cell as plain text) and its paragraphs.
 */
export function readMarkdown(text: string): { heading: string; rows: string[][]; paragraphs: string[] } {
  const blocks = readBlocks(text);
  const heading = blocks.find((b) => b.kind === 'heading');
  const table = blocks.find((b) => b.kind === 'table');
  return {
    heading: heading?.kind === 'heading' ? heading.text : '',
    rows: table?.kind === 'table' ? table.rows : [],
    paragraphs: blocks.flatMap((b) => (b.kind === 'paragraph' ? [b.text] : [])),
  };
}
