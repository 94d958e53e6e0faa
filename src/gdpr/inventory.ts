import type { SensitivePath } from '../validator/sensitive-paths.js';

/** One URN's inventory, as `gdpr` lists it. */
export interface UrnInventory {
  urn: string;
  fields: readonly SensitivePath[];
}

/** Control characters (C0, DEL, C1) as `\uXXXX`: a name from a schema must not break a line. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const visible = (s: string): string => s.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * The inventory as one GitHub notice (`gdpr --format github`), not one per field: a title, and a
 * message whose first line counts fields and URNs and whose next lines give, per URN with marked
 * fields, `urn: path (category), …`. Lines are separated by `\n` (the annotation escapes them);
 * control characters from URNs, paths and categories are written as `\uXXXX`.
 */
export function summaryNotice(inventory: readonly UrnInventory[]): { title: string; message: string } {
  const marked = inventory.filter((u) => u.fields.length > 0);
  const total = marked.reduce((n, u) => n + u.fields.length, 0);
  const lines = [`${total} sensitive field(s) in ${marked.length} of ${inventory.length} URN(s)`];
  for (const { urn, fields } of marked) {
    const list = fields.map(({ path, category }) => {
      const label = path === '' ? '(root)' : visible(path);
      return category === '' ? label : `${label} (${visible(category)})`;
    });
    lines.push(`${visible(urn)}: ${list.join(', ')}`);
  }
  return { title: 'Personal data inventory', message: lines.join('\n') };
}
