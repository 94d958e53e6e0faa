import {
  placeOf,
  placeText,
  position,
  repositoryPath,
  type Outcome,
  type ReportFinding,
  type ReportInput,
  type ReportUnit,
} from './model.js';

/*
 * JUnit XML for CI test reporters. One <testcase> per unit the command judged (a message, a URN),
 * so tests, failures, errors and skipped are the summary's counts: a unit that fails is a
 * <failure>, one that could not be judged (unreadable, unparseable, under validate --strict a URN
 * with no schema) an <error>, a skipped one <skipped/>; its findings are the element's text,
 * warnings and notes of a passing unit its <system-out>. Test suites group the units by file. The
 * root carries `skipped` and each test case `file` and `line`, as reporters read them (without
 * the root's `skipped` they count a skipped test as passed; without `file` and `line` annotating
 * ones place a failure on the wrong line): the schema the Jenkins xUnit plugin checks reports with
 * (test/vendor/junit/junit-10.xsd) is met in everything but these three attributes, which it does
 * not declare. A command that gives no units gets one test case per finding, and a passing one
 * per file checked without a finding.
 */

/** Characters XML 1.0 cannot carry at all (controls, lone surrogates, U+FFFE/U+FFFF), shown as `\uXXXX`. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function visible(s: string): string {
  return s.replace(NOT_XML, (ch) => `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/** Text content: `&`, `<`, `>` escaped (so `]]>` cannot appear); CR as a reference, which line-end normalisation keeps. */
export function xmlText(s: string): string {
  return visible(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

/** An attribute value in double quotes; whitespace kept as character references, as attribute normalisation would fold it. */
export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;');
}

const seconds = (ms: number | undefined): string => (typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms / 1000 : 0).toFixed(3);

/** A finding as one line of text: where, then what. */
function lineOf(f: ReportFinding): string {
  const at = placeText(f);
  return at === '' ? f.message : `${at}: ${f.message}`;
}

/** A test suite's counts while its test cases are written (the cases themselves go to the caller). */
interface Suite {
  name: string;
  file?: string;
  tests: number;
  counts: Record<Outcome, number>;
  ms: number;
}

const ELEMENT: Record<Exclude<Outcome, 'pass'>, string> = { fail: 'failure', error: 'error', skip: 'skipped' };
const RUN = '\u0000';

/** Units from findings, for a command that gives none: a failing test case per error, a passing one per other finding and per clean file. */
function unitsFromFindings(input: ReportInput): { units: ReportUnit[]; findings: ReportFinding[]; names: Map<string, string> } {
  const names = new Map<string, string>();
  const units: ReportUnit[] = [];
  const findings: ReportFinding[] = [];
  const seen = new Set<string>();
  input.findings.forEach((f, i) => {
    const at = placeText(f);
    const file = f.location?.file ?? '';
    const id = `${i}`;
    units.push({ id, ...(file !== '' ? { file } : {}), outcome: f.level === 'error' ? 'fail' : 'pass' });
    findings.push({ ...f, unit: id });
    seen.add(file);
    // The test case's name: the rule and where (shown by name below).
    names.set(id, at === '' ? f.rule : `${f.rule} at ${at}`);
  });
  for (const file of input.artifacts ?? []) {
    if (file === '' || seen.has(file)) continue;
    seen.add(file);
    const id = `${file}: no findings`;
    units.push({ id, file, outcome: 'pass' });
    names.set(id, id);
  }
  return { units, findings, names };
}

/**
 * JUnit written as the units come: each unit's test case is XML of its own (`add`), which the
 * caller keeps under its suite's key, in memory or on disk; the document (`document`) then wraps
 * them in suites whose counts only the end knows. Its pieces concatenate to the very text
 * `renderJunit` gives for the same units, so a run of any size needs memory only for its suites'
 * counts, not for its test cases.
 */
export class JunitStream {
  private readonly suites = new Map<string, Suite>();

  constructor(
    private readonly tool: ReportInput['tool'],
    /** The command, for the test cases' classname; `undefined` when the units were made from findings (their rule is the classname). */
    private readonly command: string | undefined,
    private readonly given: boolean,
    /** The working directory's path from the repository's root: `file` attributes name files from it (ReportInput.base). */
    private readonly base?: string,
  ) {}

  /** One unit's test case (its lines, each ending in a newline) and the key of the suite it belongs to. */
  add(u: ReportUnit, own: readonly ReportFinding[], name = u.id): { suite: string; xml: string } {
    const tool = this.tool.name;
    const key = u.file === undefined || u.file === '' ? RUN : u.file;
    let suite = this.suites.get(key);
    if (suite === undefined) {
      suite = {
        name: key === RUN ? tool : key,
        ...(key === RUN ? {} : { file: key }),
        tests: 0,
        counts: { pass: 0, fail: 0, error: 0, skip: 0 },
        ms: 0,
      };
      this.suites.set(key, suite);
    }
    suite.tests++;
    suite.counts[u.outcome]++;
    suite.ms += typeof u.timeMs === 'number' && u.timeMs > 0 ? u.timeMs : 0;
    const ruleOf = (f: ReportFinding | undefined): string => f?.rule ?? '';
    const classname = this.given ? `${tool}.${this.command ?? 'run'}` : `${tool}${own[0] ? `.${ruleOf(own[0])}` : ''}`;
    const at = this.where(u, own);
    const located = at === undefined ? '' : ` file="${xmlAttr(at.file)}" line="${at.line}"`;
    const attrs = `name="${xmlAttr(name)}" classname="${xmlAttr(classname)}" time="${seconds(u.timeMs)}"${located}`;
    const text = own.map((f) => (f.level === 'error' || u.outcome !== 'pass' ? lineOf(f) : `${f.level}: ${lineOf(f)}`)).join('\n');
    let xml: string;
    if (u.outcome === 'pass') {
      xml =
        text === ''
          ? `    <testcase ${attrs}/>`
          : `    <testcase ${attrs}>\n      <system-out>${xmlText(text)}</system-out>\n    </testcase>`;
    } else {
      // The element's message is the unit's first error (else its first finding); its text, every finding.
      const lead = own.find((f) => f.level === 'error') ?? own[0];
      const el = ELEMENT[u.outcome];
      const message = lead === undefined ? u.outcome : lead.message;
      xml = `    <testcase ${attrs}>\n      <${el} message="${xmlAttr(message)}" type="${xmlAttr(ruleOf(lead) || u.outcome)}">${xmlText(text)}</${el}>\n    </testcase>`;
    }
    return { suite: key, xml: xml + '\n' };
  }

  /**
   * Where a reporter places the test case: its file (from the repository's root; a unit of no
   * file, a run's error, takes its first finding's) and line, the unit's own (a line of NDJSON),
   * else its first finding's in that file, else the first line. Nothing when no file is known.
   */
  private where(u: ReportUnit, own: readonly ReportFinding[]): { file: string; line: number } | undefined {
    const file = u.file ?? own.map(placeOf).find((p) => p !== undefined)?.file;
    if (file === undefined || file === '') return undefined;
    const line = position(u.line) ?? own.map(placeOf).find((p) => p?.file === file && p.line !== undefined)?.line ?? 1;
    return { file: repositoryPath(file, this.base), line };
  }

  /**
   * The whole document in pieces: the report's element with the totals, each suite (in the order
   * its first unit came) with its counts around its test cases (`cases`: what `add` gave for it, in
   * order), and the notes about the whole run that no unit owns.
   */
  *document(cases: (suite: string) => Iterable<string>, runNotes: readonly ReportFinding[] = [], timeMs?: number): Generator<string> {
    const tool = this.tool.name;
    const total: Record<Outcome, number> = { pass: 0, fail: 0, error: 0, skip: 0 };
    let ms = 0;
    for (const s of this.suites.values()) {
      for (const k of Object.keys(total) as Outcome[]) total[k] += s.counts[k];
      ms += s.ms;
    }
    const tests = total.pass + total.fail + total.error + total.skip;
    const head = `<testsuites name="${xmlAttr(`${tool} ${this.tool.version}`)}" tests="${tests}" failures="${total.fail}" errors="${total.error}" skipped="${total.skip}" time="${seconds(timeMs ?? ms)}"`;
    yield '<?xml version="1.0" encoding="UTF-8"?>\n';
    if (this.suites.size === 0 && runNotes.length === 0) {
      yield `${head}/>\n`;
      return;
    }
    yield `${head}>\n`;
    for (const [key, s] of this.suites) {
      yield `  <testsuite name="${xmlAttr(s.name)}" tests="${s.tests}" failures="${s.counts.fail}" errors="${s.counts.error}" skipped="${s.counts.skip}" time="${seconds(s.ms)}"${s.file === undefined ? '' : ` file="${xmlAttr(repositoryPath(s.file, this.base))}"`}>\n`;
      yield* cases(key);
      yield '  </testsuite>\n';
    }
    if (runNotes.length > 0) {
      const text = runNotes.map((f) => `${f.level}: ${lineOf(f)}`).join('\n');
      yield `  <testsuite name="${xmlAttr(tool)}" tests="0" failures="0" errors="0" skipped="0" time="0.000">\n    <system-out>${xmlText(text)}</system-out>\n  </testsuite>\n`;
    }
    yield '</testsuites>\n';
  }
}

export function renderJunit(input: ReportInput): string {
  const tool = input.tool.name;
  const given = input.units !== undefined;
  const { units, findings, names } = given
    ? { units: input.units!, findings: input.findings, names: new Map<string, string>() }
    : unitsFromFindings(input);
  const byUnit = new Map<string, ReportFinding[]>();
  const runLevel: ReportFinding[] = [];
  for (const f of findings) {
    if (f.unit === undefined) runLevel.push(f);
    else (byUnit.get(f.unit) ?? byUnit.set(f.unit, []).get(f.unit)!).push(f);
  }
  const stream = new JunitStream(input.tool, input.command, given, input.base);
  const kept = new Map<string, string[]>();
  const keep = (u: ReportUnit, own: readonly ReportFinding[]): void => {
    const { suite, xml } = stream.add(u, own, names.get(u.id) ?? u.id);
    (kept.get(suite) ?? kept.set(suite, []).get(suite)!).push(xml);
  };
  for (const u of units) keep(u, byUnit.get(u.id) ?? []);
  // Findings about the whole run are never dropped, though no unit owns them: an error (a manifest
  // that cannot be read) is one more test case, an error; notes and warnings alone (a registry
  // absent at the ref) are the <system-out> of a suite with no test case, so the counts stay the
  // summary's.
  const runFails = runLevel.some((f) => f.level === 'error');
  if (runFails) keep({ id: tool, outcome: 'error' }, runLevel);
  let xml = '';
  for (const piece of stream.document((suite) => kept.get(suite) ?? [], runFails ? [] : runLevel, input.timeMs)) xml += piece;
  return xml;
}
