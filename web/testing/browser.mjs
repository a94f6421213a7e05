// Headless Chromium for the browser tests (web/browser, web/package):
// Debian's chromium (or $CHROMIUM) driven by playwright-core, never a
// downloaded browser. A test is skipped when the browser is missing, unless
// AGENTWASM_REQUIRE_BROWSER=1 (CI sets it), which makes it fail instead.
import { existsSync } from 'node:fs';

/** Where the browser is. */
export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

/**
 * Why the browser tests cannot run ('' when they can): the browser, or one
 * of the extra files named, is missing. Throws when the browser is required.
 * @param {Record<string, string>} [files] path → how to make it
 */
export function browserMissing(files = {}) {
  let why = existsSync(chromiumPath) ? '' : `${chromiumPath} not found (apt-get install chromium)`;
  for (const [file, fix] of Object.entries(files)) {
    if (!why && !existsSync(file)) why = `${file} not found (${fix})`;
  }
  if (why && process.env.AGENTWASM_REQUIRE_BROWSER === '1') throw new Error(`browser test required but ${why}`);
  return why;
}

/**
 * Launches headless Chromium with the flags this machine needs.
 * @param {{args?: string[]}} [options] extra command-line flags, after the
 *   usual ones (e.g. --host-resolver-rules=MAP evil.test 127.0.0.1)
 */
export async function launchChromium({ args = [] } = {}) {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-quic', ...args],
  });
}
