// Runs before each test file of both projects (vitest.config.ts, setupFiles). A project's files share
// their worker processes (isolate: false: a process start and a fresh import of everything per file
// was a fifth of the project's CPU), so what one file leaves behind in a process must not reach the next:
// - src/ and test/ modules are evaluated anew for each file, as in a process of its own: module state
//   (warnings told once per process, caches) starts empty, and a module a file mocks (vi.mock) is
//   neither seen through a module an earlier file evaluated nor kept by the next file;
// - packages from node_modules are loaded once per process and shared; fast-check's global
//   configuration (fc.configureGlobal, e.g. a seed) is the one such state a test file sets, and is
//   reset here, to a fixed seed: a property that names none still runs the same cases in every
//   `npm test` (BQ_FC_SEED=<seed> draws others, or replays a reported one).
import fc from 'fast-check';
import { vi } from 'vitest';

vi.resetModules();
fc.resetConfigureGlobal();
fc.configureGlobal({ seed: Number(process.env.BQ_FC_SEED ?? 38_038) });
