import { defineConfig } from 'vitest/config';

// Two projects, told apart by file name (docs/CONTRIBUTING.md, "Tests"):
// - unit: imports src/ and needs no build; it never runs bin/ or reads dist/
//   (test/architecture/test-projects.test.ts scans for it, and the helpers that spawn the CLI refuse
//   to under BQ_TEST_PROJECT=unit);
// - e2e: *.e2e.test.ts, drives the built CLI and the built package.
const E2E = 'test/**/*.e2e.test.ts';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: on a 2-core machine, one file at a time,
    // though most e2e files spend their time waiting for the CLI processes they start.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [E2E],
          env: { BQ_TEST_PROJECT: 'unit' },
          // Files share their worker processes: most of them run in well under a second, and a
          // process of their own each (its start, then vitest, fast-check, typescript… imported
          // again) cost more than their tests. test/helpers/file-setup.ts gives each file fresh
          // modules of src/ and test/ all the same.
          isolate: false,
          setupFiles: ['test/helpers/file-setup.ts'],
        },
      },
      // The same for end-to-end files: they spawn the CLI, and their own imports (helpers, parsers of
      // our outputs) are loaded once per worker instead of once per file.
      { extends: true, test: { name: 'e2e', include: [E2E], isolate: false, setupFiles: ['test/helpers/file-setup.ts'] } },
    ],
  },
});
