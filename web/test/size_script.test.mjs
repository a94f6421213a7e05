// scripts/size.mjs's page sets, run on temporary files whose brotli bytes
// the test computes itself: each set's sum, the goal report (within it, or
// missing it by so many bytes, never failing), the budget (exit 1 when the
// sum is over it, saying which set and by how much), the doc table, and the
// refusal of a bad argument (exit 2).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';
import { randomBytes } from 'node:crypto';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../scripts/size.mjs', import.meta.url));

let dir;
/** The temporary files, by name: their paths and brotli bytes. */
const files = {};

/** Brotli quality 11, as size.mjs measures. */
function brotli(bytes) {
  return brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  }).length;
}

/** Runs size.mjs in dir; resolves with {code, stdout, stderr} whether it fails or not. */
async function size(...args) {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], { cwd: dir });
    return { code: 0, stdout, stderr };
  } catch (err) {
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

const n = (x) => x.toLocaleString('en-US');

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentwasm-size-'));
  // Random bytes, which do not compress, of three sizes.
  for (const [name, length] of [['loader.mjs', 3000], ['exec.js', 1000], ['module.wasm', 20000]]) {
    const bytes = randomBytes(length);
    await writeFile(path.join(dir, name), bytes);
    files[name] = brotli(bytes);
  }
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('a page set prints each file\'s brotli bytes and their sum', async () => {
  const out = await size('--pageset', 'web=loader.mjs+exec.js+module.wasm');
  assert.equal(out.code, 0, out.stderr);
  const sum = files['loader.mjs'] + files['exec.js'] + files['module.wasm'];
  assert.ok(sum > 24000, `random bytes do not compress (${sum} B)`);
  assert.ok(out.stdout.includes(`size: page set web: ${n(files['loader.mjs'])} + ${n(files['exec.js'])} + ${n(files['module.wasm'])} = ${n(sum)} B brotli `
    + '(loader.mjs + exec.js + module.wasm)'), out.stdout);
});

test('a goal reports within or missing, and never fails', async () => {
  const sum = files['loader.mjs'] + files['exec.js'] + files['module.wasm'];
  const cases = [
    { goal: sum + 100, says: `size: page set web is within its goal of ${n(sum + 100)} B (100 B to spare)` },
    { goal: sum, says: `size: page set web is within its goal of ${n(sum)} B (0 B to spare)` },
    { goal: sum - 1234, says: `size: page set web misses its goal of ${n(sum - 1234)} B by 1,234 B` },
  ];
  for (const c of cases) {
    const out = await size('--pageset', 'web=loader.mjs+exec.js+module.wasm', '--goal', `web=${c.goal}`);
    assert.equal(out.code, 0, `goal ${c.goal}: ${out.stderr}`);
    assert.ok(out.stdout.includes(c.says), `goal ${c.goal}: ${out.stdout}`);
  }
});

test('a budget fails when the sum is over it, saying which set and by how much', async () => {
  const small = files['loader.mjs'] + files['exec.js'];
  const within = await size('--pageset', `small=loader.mjs+exec.js:${small}`);
  assert.equal(within.code, 0, within.stderr);
  assert.ok(within.stdout.includes(`size: page set small is within its budget of ${n(small)} B (0 B to spare)`), within.stdout);

  const over = await size('--pageset', `small=loader.mjs+exec.js:${small - 1}`, '--pageset', 'big=module.wasm:999999');
  assert.equal(over.code, 1);
  assert.ok(over.stderr.includes(`size: page set small is over its budget of ${n(small - 1)} B by 1 B brotli (loader.mjs + exec.js)`), over.stderr);
  assert.ok(over.stdout.includes('size: page set big is within its budget of 999,999 B'), over.stdout);
});

test('a --doc block gets the page-set table', async () => {
  const doc = path.join(dir, 'SIZE.md');
  await writeFile(doc, 'before\n<!-- pageset:begin -->\nold\n<!-- pageset:end -->\nafter\n');
  const sum = files['loader.mjs'] + files['exec.js'] + files['module.wasm'];
  const out = await size('--doc', 'SIZE.md', '--pageset', 'web=loader.mjs+exec.js+module.wasm', '--goal', `web=${sum - 5}`,
    '--pageset', 'other=loader.mjs+exec.js+module.wasm');
  assert.equal(out.code, 0, out.stderr);
  assert.equal(await readFile(doc, 'utf8'), ['before', '<!-- pageset:begin -->',
    '| variant | loader | runtime script | module | total | goal |', '|---|---|---|---|---|---|',
    `| \`web\` | ${n(files['loader.mjs'])} B (\`loader.mjs\`) | ${n(files['exec.js'])} B (\`exec.js\`) | ${n(files['module.wasm'])} B (\`module.wasm\`) | **${n(sum)} B** | ${n(sum - 5)} B: misses by 5 B |`,
    `| \`other\` | ${n(files['loader.mjs'])} B (\`loader.mjs\`) | ${n(files['exec.js'])} B (\`exec.js\`) | ${n(files['module.wasm'])} B (\`module.wasm\`) | **${n(sum)} B** | — |`,
    '<!-- pageset:end -->', 'after', ''].join('\n'));

  // A doc without the block, when page sets were measured: an error, not a silent skip.
  await writeFile(doc, 'no block\n');
  const none = await size('--doc', 'SIZE.md', '--pageset', 'web=loader.mjs+exec.js+module.wasm');
  assert.equal(none.code, 1);
  assert.match(none.stderr, /SIZE\.md has no <!-- size:begin --> … <!-- size:end --> block \(nor a <!-- pageset:begin --> … <!-- pageset:end --> block\)/);
  // A doc with the modules' table alone: the page sets have nowhere to go.
  await writeFile(doc, '<!-- size:begin -->\n<!-- size:end -->\n');
  const tableOnly = await size('--doc', 'SIZE.md', '--pageset', 'web=loader.mjs+exec.js+module.wasm', 'module.wasm');
  assert.equal(tableOnly.code, 1);
  assert.match(tableOnly.stderr, /page sets were measured but no --doc has a <!-- pageset:begin --> … <!-- pageset:end --> block \(SIZE\.md\)/);
});

test('bad page-set arguments are refused with exit 2', async () => {
  for (const [args, message] of [
    [['--pageset', 'web'], /--pageset takes NAME=FILE\+FILE\+…\[:BUDGET\] \(BUDGET in bytes\), not "web"/],
    [['--pageset', 'web=a.js:lots'], /--pageset takes NAME=FILE/],
    [['--pageset', 'web=a.js', '--pageset', 'web=b.js'], /two page sets are named web/],
    [['--pageset', 'web=loader.mjs', '--goal', 'web=much'], /--goal takes NAME=BYTES, not "web=much"/],
    [['--goal', 'nothing=5'], /--goal nothing names no --pageset/],
    [['--pagesets', 'web=loader.mjs'], /unknown flag --pagesets/],
  ]) {
    const out = await size(...args);
    assert.equal(out.code, 2, `${args.join(' ')}: ${out.stdout}${out.stderr}`);
    assert.match(out.stderr, message);
  }
  const missing = await size('--pageset', 'web=loader.mjs+gone.js');
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot read gone\.js: .*build it first/);
});
