// The checks every run of the cross-transport scenario (direct_scenario.mjs)
// must pass, for the node and browser tests (Node only: node:assert).
import assert from 'node:assert/strict';
import { steps } from './direct_scenario.mjs';

/**
 * Checks what every run of the scenario must show, whichever the transport.
 * @param {{turns: object[], raw: object[], basemap: string, published: boolean}} run runScenario's result
 *   (or, from a page, the same as plain data)
 */
export function assertCompleted(run) {
  assert.deepEqual(run.raw.map((t) => [t.status, t.errorCode]), steps.map(() => ['completed', undefined]), JSON.stringify(run.raw.map((t) => t.errorMessage)));
  const [text, page, mcp, asked, resumed] = run.turns;
  assert.match(text.text, /^I am the scripted model of agentwasm dev/);
  assert.deepEqual(text.toolCalls, []);
  assert.deepEqual(page.toolCalls.map((c) => [c.toolName, c.plane, c.ok]), [['set_basemap', 'runtime', true]]);
  assert.equal(page.text, 'Done: the basemap is now dark.');
  assert.equal(run.basemap, 'dark', 'the page ran its own tool');
  assert.deepEqual(mcp.toolCalls.map((c) => [c.toolName, c.plane, c.ok]),
    [['honua_studio_create_draft', 'composition', true], ['honua_studio_add_layer', 'composition', true]]);
  assert.match(mcp.text, /^Added the schools layer to draft d-1, which is now at generation \d+\.$/);
  assert.deepEqual(asked.toolCalls.map((c) => c.toolName), Array(3).fill('studio.journey.publish'), 'the journey opened, its first step, then the step that asks');
  assert.deepEqual(asked.pendingApprovals.map((p) => [p.askId, p.toolName, p.action]), [['<ask 1>', 'studio.journey.publish', 'review.publish']]);
  assert.equal(resumed.pendingApprovals, undefined);
  assert.equal(resumed.text, 'Published: the map is live.');
  assert.equal(run.published, true, 'the approved step was performed');
  // Every call's id is the one the model gave, as the scripted model numbers them (call-<messages>-<n>).
  for (const turn of run.turns) for (const c of turn.toolCalls) assert.match(c.toolCallId, /^call-\d+-\d+$/);
}
