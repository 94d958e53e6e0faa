/** Where the docs live (package.json's repository; test/report/sarif-consumers.e2e.test.ts holds them equal). */
export const DOCS = 'https://github.com/babelqueue/bqschema/blob/main/docs/';

/** The docs page of a command (`cli/validate.md`) or of a topic (`compat-rules.md`), absolute: a rule's helpUri. */
export const docsPage = (page: string): string => `${DOCS}${page}`;
