/*
 * The languages `bqschema types --lang` writes: one row each, in the order help lists them. This
 * file imports nothing, so the CLI's option table can read it at start without loading any
 * generator; each row's generator is its entry in GENERATORS (./generators.ts), which the compiler
 * holds to this list. Adding a language is a row here, its generator file and its GENERATORS entry.
 */
export const LANGUAGES = [
  { lang: 'ts', what: 'TypeScript' },
  { lang: 'go', what: 'structs with json tags' },
  { lang: 'python', what: 'TypedDict, 3.11' },
  { lang: 'java', what: 'records, 17' },
  { lang: 'csharp', what: 'C# 7 DataContract classes' },
  { lang: 'php', what: 'readonly classes, 8.2' },
] as const;

export type Lang = (typeof LANGUAGES)[number]['lang'];

export const DEFAULT_LANG: Lang = 'ts';

/** `ts (TypeScript), go (structs with json tags), … or php (…)`: --lang's help. */
export function languageList(): string {
  const words = LANGUAGES.map((l) => `${l.lang} (${l.what})`);
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}
