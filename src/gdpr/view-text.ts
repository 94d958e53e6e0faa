import type { TextLine, TextView } from '../report/text.js';
import { pointerLabel } from '../validator/index.js';
import type { UnmarkedField } from './audit.js';
import { OWNERLESS_RULE, type InventoryUrn } from './report.js';

/* gdpr's text: the inventory's fields under each URN, the --require gate's unmarked fields. */

/** The inventory: each URN and its fields as a table, each path padded to the longest of its URN; its notice is the summary line's. */
export const inventoryTextView: TextView<never, InventoryUrn> = {
  unit: (u) => {
    const { urn, file, fields } = u.subject!;
    let width = 0;
    for (const f of fields) width = Math.max(width, pointerLabel(f.path).length);
    const notes: TextLine[] =
      fields.length === 0
        ? [[{ text: 'no sensitive fields', tone: 'dim' }]]
        : fields.map(({ path, category }) => [
            pointerLabel(path).padEnd(width),
            '  ',
            category === '' ? { text: '(no category)', tone: 'dim' } : category,
          ]);
    return { heading: [{ text: urn, tone: 'bold' }, '  ', { text: file, tone: 'dim' }], notes };
  },
  // The notice: text lists the fields under each URN instead, and the summary line counts them.
  finding: () => ({ line: null }),
};

/** The --require gate: an unmarked field under its URN, by its path. */
export const requireTextView: TextView<UnmarkedField> = {
  finding: (f) => {
    if (f.subject !== undefined)
      return {
        line: [
          { text: 'error', tone: 'fail' },
          '  ',
          { text: pointerLabel(f.subject.path), tone: 'fail' },
          '  looks like personal data but is not marked x-gdpr-sensitive',
        ],
      };
    // A service handling personal data with no owner: its message names it (JSON-quoted, inert).
    if (f.rule === OWNERLESS_RULE.id) return { line: [{ text: '✗ error', tone: 'fail' }, '  ', f.message] };
    return undefined;
  },
};
