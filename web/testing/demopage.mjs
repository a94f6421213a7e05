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
