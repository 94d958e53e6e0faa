import { placeText, type Outcome, type ReportFinding, type ReportInput, type ReportUnit } from './model.js';

/*
 * JUnit XML for CI test reporters, valid against the JUnit schema the Jenkins xUnit plugin checks
 * reports with (test/vendor/junit/junit-10.xsd). One <testcase> per unit the command judged (a
 * message, a URN), so tests, failures, errors and skipped are the summary's counts: a unit that
 * fails is a <failure>, one that could not be judged (unreadable, unparseable) an <error>, a skipped
 * one <skipped/>; its findings are the element's text, warnings and notes of a passing unit its
 * <system-out>. Test suites group the units by file (the suite carries `file`: the schema allows
 * no location on a test case, so its name and text say where). A command that gives no units gets
 * one test case per finding, and a passing one per file checked without a finding.
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

interface Suite {
  name: string;
  file?: string;
  cases: string[];
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

export function renderJunit(input: ReportInput): string {
  const tool = input.tool.name;
  const given = input.units !== undefined;
  const { units, findings, names } = given ? { units: input.units!, findings: input.findings, names: new Map<string, string>() } : unitsFromFindings(input);
  const byUnit = new Map<string, ReportFinding[]>();
  const runLevel: ReportFinding[] = [];
  for (const f of findings) {
    if (f.unit === undefined) runLevel.push(f);
    else (byUnit.get(f.unit) ?? byUnit.set(f.unit, []).get(f.unit)!).push(f);
  }
  const all: ReportUnit[] = [...units];
  // Findings about the whole run are never dropped, though no unit owns them: an error (a manifest
  // that cannot be read) is one more test case, an error; notes and warnings alone (a registry
  // absent at the ref) are the <system-out> of a suite with no test case, so the counts stay the
  // summary's.
  const runFails = runLevel.some((f) => f.level === 'error');
  if (runFails) {
    all.push({ id: tool, outcome: 'error' });
    byUnit.set(tool, runLevel);
  }
  const suites = new Map<string, Suite>();
  for (const u of all) {
    const key = u.file === undefined || u.file === '' ? RUN : u.file;
    let suite = suites.get(key);
    if (suite === undefined) {
      suite = { name: key === RUN ? tool : key, ...(key === RUN ? {} : { file: key }), cases: [], counts: { pass: 0, fail: 0, error: 0, skip: 0 }, ms: 0 };
      suites.set(key, suite);
    }
    suite.counts[u.outcome]++;
    suite.ms += typeof u.timeMs === 'number' && u.timeMs > 0 ? u.timeMs : 0;
    const own = byUnit.get(u.id) ?? [];
    const name = names.get(u.id) ?? u.id;
    const ruleOf = (f: ReportFinding | undefined): string => f?.rule ?? '';
    const classname = given ? `${tool}.${input.command ?? 'run'}` : `${tool}${own[0] ? `.${ruleOf(own[0])}` : ''}`;
    const attrs = `name="${xmlAttr(name)}" classname="${xmlAttr(classname)}" time="${seconds(u.timeMs)}"`;
    const text = own.map((f) => (f.level === 'error' || u.outcome !== 'pass' ? lineOf(f) : `${f.level}: ${lineOf(f)}`)).join('\n');
    if (u.outcome === 'pass') {
      suite.cases.push(text === '' ? `    <testcase ${attrs}/>` : `    <testcase ${attrs}>\n      <system-out>${xmlText(text)}</system-out>\n    </testcase>`);
    } else {
      // The element's message is the unit's first error (else its first finding); its text, every finding.
      const lead = own.find((f) => f.level === 'error') ?? own[0];
      const el = ELEMENT[u.outcome];
      const message = lead === undefined ? u.outcome : lead.message;
      suite.cases.push(`    <testcase ${attrs}>\n      <${el} message="${xmlAttr(message)}" type="${xmlAttr(ruleOf(lead) || u.outcome)}">${xmlText(text)}</${el}>\n    </testcase>`);
    }
  }
  const total: Record<Outcome, number> = { pass: 0, fail: 0, error: 0, skip: 0 };
  const body: string[] = [];
  for (const s of suites.values()) {
    for (const k of Object.keys(total) as Outcome[]) total[k] += s.counts[k];
    const tests = s.cases.length;
    body.push(
      `  <testsuite name="${xmlAttr(s.name)}" tests="${tests}" failures="${s.counts.fail}" errors="${s.counts.error}" skipped="${s.counts.skip}" time="${seconds(s.ms)}"${s.file === undefined ? '' : ` file="${xmlAttr(s.file)}"`}>`,
      ...s.cases,
      '  </testsuite>',
    );
  }
  if (!runFails && runLevel.length > 0) {
    const text = runLevel.map((f) => `${f.level}: ${lineOf(f)}`).join('\n');
    body.push(`  <testsuite name="${xmlAttr(tool)}" tests="0" failures="0" errors="0" skipped="0" time="0.000">`, `    <system-out>${xmlText(text)}</system-out>`, '  </testsuite>');
  }
  const tests = total.pass + total.fail + total.error + total.skip;
  // The report's own element has no `skipped` in the schema: each suite's carries it.
  const head = `<testsuites name="${xmlAttr(`${tool} ${input.tool.version}`)}" tests="${tests}" failures="${total.fail}" errors="${total.error}" time="${seconds(input.timeMs ?? [...suites.values()].reduce((n, s) => n + s.ms, 0))}"`;
  const xml = body.length === 0 ? [`${head}/>`] : [`${head}>`, ...body, '</testsuites>'];
  return ['<?xml version="1.0" encoding="UTF-8"?>', ...xml].join('\n') + '\n';
}
