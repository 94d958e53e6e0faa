import { byCodeUnits, sensitiveCategory, walkSchema } from './paths.js';

export interface SensitivePath {
  /** The node's path in the gdpr path syntax (see paths.ts). */
  path: string;
  /** The marker's category string, `""` for `x-gdpr-sensitive: true`. */
  category: string;
}

/** Every node marked `x-gdpr-sensitive`, nested marks under a marked node included, sorted by path. */
export function sensitivePaths(schema: unknown): SensitivePath[] {
  const out: SensitivePath[] = [];
  walkSchema(schema, undefined, ({ node, path }) => {
    const category = sensitiveCategory(node);
    if (category !== undefined) out.push({ path, category });
    return undefined;
  });
  return out.sort((a, b) => byCodeUnits(a.path, b.path));
}
