/** Debian's Chromium (.ci/run installs the chromium package), as the browser tests launch it through playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless, no sandbox (root in CI), and nothing that reaches the network on its own. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
