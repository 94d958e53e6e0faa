import { position, type ReportFinding, type ReportInput } from './findings.js';

/*
 * JUnit XML for CI test reporters: one <testsuite> per file (findings without a file in one named
 * after the tool), one <testcase> per finding; errors are <failure>s, warnings and notes pass with
 * their text in <system-out>. Files checked without a finding are one passing test case each.
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

function where(f: ReportFinding): string {
  if (f.file === undefined || f.file === '') return '';
  const line = position(f.line);
  const col = line === undefined ? undefined : position(f.col);
  return `${f.file}${line === undefined ? '' : `:${line}`}${col === undefined ? '' : `:${col}`}`;
}

interface Suite {
  name: string;
  file?: string;
  cases: string[];
  failures: number;
}

export function renderJunit(input: ReportInput): string {
  const tool = input.tool.name;
  const suites = new Map<string, Suite>();
  const suiteFor = (file: string | undefined): Suite => {
    const key = file === undefined || file === '' ? '\u0000' : file;
    let s = suites.get(key);
    if (s === undefined) {
      s = { name: key === '\u0000' ? tool : key, ...(key === '\u0000' ? {} : { file: key }), cases: [], failures: 0 };
      suites.set(key, s);
    }
    return s;
  };
  for (const f of input.results) {
    const suite = suiteFor(f.file);
    const at = where(f);
    const name = at === '' ? f.ruleId : `${f.ruleId} at ${at}`;
    const line = position(f.line);
    const attrs =
      `name="${xmlAttr(name)}" classname="${xmlAttr(`${tool}.${f.ruleId}`)}"` +
      (suite.file === undefined ? '' : ` file="${xmlAttr(suite.file)}"`) +
      (line === undefined ? '' : ` line="${line}"`);
    const text = xmlText(at === '' ? f.message : `${at}: ${f.message}`);
    if (f.level === 'error') {
      suite.failures++;
      suite.cases.push(
        `    <testcase ${attrs}>\n      <failure message="${xmlAttr(f.message)}" type="${xmlAttr(f.ruleId)}">${text}</failure>\n    </testcase>`,
      );
    } else {
      suite.cases.push(`    <testcase ${attrs}>\n      <system-out>${xmlText(`${f.level}: `)}${text}</system-out>\n    </testcase>`);
    }
  }
  for (const file of input.artifacts ?? []) {
    if (file === '' || suites.has(file)) continue;
    const suite = suiteFor(file);
    suite.cases.push(`    <testcase name="${xmlAttr(`${file}: no findings`)}" classname="${xmlAttr(tool)}" file="${xmlAttr(file)}"/>`);
  }
  let tests = 0;
  let failures = 0;
  const body: string[] = [];
  for (const s of suites.values()) {
    tests += s.cases.length;
    failures += s.failures;
    body.push(
      `  <testsuite name="${xmlAttr(s.name)}" tests="${s.cases.length}" failures="${s.failures}" errors="0" skipped="0">`,
      ...s.cases,
      '  </testsuite>',
    );
  }
  const head = `<testsuites name="${xmlAttr(`${tool} ${input.tool.version}`)}" tests="${tests}" failures="${failures}" errors="0" skipped="0"`;
  const xml = body.length === 0 ? [`${head}/>`] : [`${head}>`, ...body, '</testsuites>'];
  return ['<?xml version="1.0" encoding="UTF-8"?>', ...xml].join('\n') + '\n';
}
