import type { JsonView } from '../report/json.js';
import type { CheckIssue, CheckVerdict, EntryCheck } from './index.js';

/* check's JSON (schemas/output/check.json): its errors, warnings and acknowledged keywords as they are. */

/** An issue as the JSON output has it: placed at its start (`line`, `col`), as the glossary says. */
const atStart = ({ endLine: _l, endCol: _c, ...i }: CheckIssue): CheckIssue => i;

export function checkJsonView(verdict: CheckVerdict): JsonView<EntryCheck> {
  return {
    fields: {
      errors: verdict.errors.map(atStart),
      warnings: verdict.warnings.map(atStart),
      acknowledged: verdict.acknowledged.map(atStart),
    },
  };
}
