import type { Change } from './compare.js';
import type { CorpusReport } from './evidence.js';
import { remedyText, type SchemaProblem } from './registry.js';
import type { CompatUnitSubject } from './report.js';
import type { Rollout } from './rollout.js';
import { excusedBy, rowFails, type PairVerdict, type RegistryVerdict, type Row, type Verdicts } from './verdict.js';
import type { JsonView } from '../report/json.js';

/*
 * compat's JSON (schemas/output/compat.json, a published contract): for two files the changes,
 * problems, rollout, remedy and evidence; with --against the comparison and an entry per URN.
 */

/** A change for JSON: the engine's fields (witness in full) and the exception that excuses it; its pointer into the schemas is `schemaPath`. */
function jsonChange(v: Verdicts, c: Change): object {
  const { rule, breaking, path, ...rest } = c;
  const e = excusedBy(v, c);
  return {
    rule,
    breaking,
    schemaPath: path,
    ...rest,
    ...(e === undefined ? {} : { excepted: { reason: e.reason, owner: e.owner, expires: e.expires, source: e.source } }),
  };
}

const jsonProblems = (problems: readonly SchemaProblem[]): object[] =>
  problems.map(({ side, message, pointer, keyword, suggestion }) => ({ side, message, pointer, keyword, suggestion }));
const jsonRollout = (r: Rollout | undefined): object =>
  r === undefined ? {} : { rollout: { order: r.order, sentence: r.sentence, ...(r.deploy ? { deploy: r.deploy } : {}) } };

function jsonExceptions(v: Verdicts): object {
  const s = v.exceptions;
  if (s === undefined) return {};
  const notices = (list: Array<{ message: string }>): string[] => list.map((n) => n.message);
  return {
    exceptions: {
      file: s.file,
      excepted: s.outcome.suppressed.length,
      expired: notices(s.outcome.expired),
      stale: notices(s.outcome.stale),
      unused: notices(s.outcome.unused),
    },
  };
}

function jsonCorpus(c: CorpusReport | undefined): object {
  if (c === undefined) return {};
  return { corpus: { documents: c.documents, ignored: c.ignored, unreadable: c.unreadable, errors: c.errors, urns: c.urns } };
}

function jsonRow(v: Verdicts, r: Row): object {
  return {
    urn: r.urn,
    status: r.status,
    breaking: rowFails(r),
    changes: r.changes.map((ch) => jsonChange(v, ch)),
    ...(r.problems.length > 0 ? { problems: jsonProblems(r.problems) } : {}),
    ...(r.deprecated ? { deprecated: true } : {}),
    ...(r.excepted ? { excepted: true } : {}),
    ...(r.remedy ? { remedy: remedyText(r.remedy) } : {}),
    ...jsonRollout(r.rollout),
    ...(r.services ? { services: r.services } : {}),
    ...(r.corpus ? { corpus: { checked: r.corpus.checked, rejected: r.corpus.rejected, examples: r.corpus.examples } } : {}),
  };
}

/** Two files: the verdict, the changes and problems, the rollout, the remedy, the evidence. */
export function pairJsonView(view: PairVerdict): JsonView<CompatUnitSubject> {
  const { v, changes, problems, rollout, remedy, compatible, level, policy, urn } = view;
  return {
    fields: {
      compatible,
      compatibility: level,
      // Deprecated: compatibility's first name, kept for readers written against it.
      mode: level,
      policy,
      ...(urn === undefined ? {} : { urn }),
      changes: changes.map((ch) => jsonChange(v, ch)),
      problems: jsonProblems(problems),
      ...jsonRollout(rollout),
      ...(remedy ? { remedy: remedyText(remedy) } : {}),
      ...jsonCorpus(v.corpus),
      ...jsonExceptions(v),
    },
  };
}

/** The registry: the verdict and the ref compared with, an entry per URN, then the evidence. */
export function registryJsonView(view: RegistryVerdict): JsonView<CompatUnitSubject> {
  const { v, compatible, level, policy, against } = view;
  const corpus = v.corpus
    ? { corpus: { documents: v.corpus.documents, ignored: v.corpus.ignored, unreadable: v.corpus.unreadable, errors: v.corpus.errors } }
    : {};
  return {
    fields: { compatible, compatibility: level, mode: level, policy, against, ...(view.window ? { transitive: view.window } : {}) },
    units: 'urns',
    unit: (u) => (u.subject?.kind === 'urn' ? jsonRow(v, u.subject.row) : undefined),
    after: { ...corpus, ...jsonExceptions(v) },
  };
}
