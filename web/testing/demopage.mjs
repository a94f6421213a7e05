// Driving the demo page (web/demo) in the browser tests: its turns are read
// from window.demo.state, which the page keeps for them.

/** The number of turns the demo page has finished. */
export const turnCount = (page) => page.evaluate(() => window.demo.state.turns.length);

/** Waits for the turn after the n-th to end, and returns it (the page's record of it). */
export async function turnAfter(page, n) {
  await page.waitForFunction((k) => window.demo.state.turns.length > k && !window.demo.state.busy, n, { timeout: 30000 });
  return page.evaluate(() => window.demo.state.turns.at(-1));
}

/** Types a request as a person would (Enter sends) and waits for the turn to end. */
export async function typeAndWait(page, text) {
  const n = await turnCount(page);
  await page.fill('#input', text);
  await page.press('#input', 'Enter');
  return turnAfter(page, n);
}

/**
 * Opens the demo page at base in a new 1280×900 page of browser, waits until it is ready, and
 * records in problems what a person would call one: console errors, page errors, HTTP errors.
 */
export async function openDemo(browser, base, problems) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${new URL(r.url()).pathname}`); });
  await page.goto(`${base}/`);
  await page.waitForFunction(() => window.demo?.ready === true, null, { timeout: 30000 });
  return page;
}
