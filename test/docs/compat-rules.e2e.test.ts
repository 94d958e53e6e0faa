import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/compat/index.js';
// @ts-expect-error: a plain ES module without types
import { compatRulesPage } from '../../scripts/gen-compat-rules.js';
import { ROOT } from '../helpers/cli.js';

// docs/compat-rules.md is generated from the compat rules (scripts/gen-compat-rules.js, reading the
// build); it must be exactly what the generator gives now. Regenerate with --write.

const page = readFileSync(join(ROOT, 'docs', 'compat-rules.md'), 'utf8');

describe('docs/compat-rules.md', () => {
  it('is what scripts/gen-compat-rules.js generates from the built rules', async () => {
    expect(page).toBe(await compatRulesPage());
  });

  it('has one row per rule, in RULES order, with the modes each breaks', () => {
    const rows = page
      .split('\n')
      .filter((l) => /^\| `[a-z-]+` \|/.test(l))
      .map((l) =>
        l
          .slice(1, -1)
          .split('|')
          .map((c) => c.trim()),
      );
    expect(rows.map((r) => r[0])).toEqual(RULES.map((r) => `\`${r.id}\``));
    // The mode columns of the table made here (a rulesMarkdown() from src/compat may lay it out otherwise).
    if (!page.includes('| rule | backward | forward | full |')) return;
    for (const [i, rule] of RULES.entries()) {
      const [, backward, forward, full] = rows[i]!;
      expect(backward === 'breaks', `${rule.id} backward`).toBe(rule.breaks === 'backward' || rule.breaks === 'both');
      expect(forward === 'breaks', `${rule.id} forward`).toBe(rule.breaks === 'forward' || rule.breaks === 'both');
      expect(full === 'breaks', `${rule.id} full`).toBe(rule.breaks !== 'never');
    }
  });

  it('every rule id a compat run can print is on the page', () => {
    for (const id of ['required-added', 'enum-value-removed', 'property-added', 'max-length-lowered']) {
      expect(page).toContain(`| \`${id}\` |`);
    }
  });
});
