// The documentation's JavaScript compiles under `tsc --strict`: every ```js and ```ts block
// of the files below, and every @example block in the declarations' doc comments, is
// written out as a module of its own (an .mts file: top-level await, ES imports), its
// import of the loader ('agentwasm', './dist/agentwasm.mjs', …) pointed at
// web/agentwasm.mjs, and compiled by one `tsc --strict --noEmit` run against the
// package's declarations (web/agentwasm.d.ts through agentwasm.d.mts). The names a
// snippet uses without defining them — the app's own things: `tokens`, `map`, `render`,
// `graph`, `shop`, `approvalCard`, `signal`, … — are declared once, in
// snippet-globals.d.ts beside this file. A snippet that does not compile fails its own
// subtest with the file, the line its block starts on, the code and tsc's messages.
// `make typecheck` (part of `make test`) runs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const loader = path.join(root, 'web', 'agentwasm.mjs');
const globals = fileURLToPath(new URL('./snippet-globals.d.ts', import.meta.url));
const tsc = path.join(root, 'web', 'node_modules', '.bin', 'tsc');

/** The Markdown files whose js and ts blocks must compile. */
const markdown = ['README.md', 'web/package/README.md', 'docs/PORT.md', 'docs/DEV.md', 'docs/MODELS.md', 'docs/SNAPSHOTS.md', 'docs/TRACING.md'];
/** The declaration files whose @example blocks must compile. */
const declarations = ['web/agentwasm.d.ts'];

/**
 * The fenced js/ts blocks of a Markdown text, each with the line its code starts on.
 * @returns {{line: number, code: string}[]}
 */
export function markdownSnippets(text) {
  const out = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(js|ts|javascript|typescript|mjs|mts)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end])) end++;
    out.push({ line: start + 1, code: lines.slice(start, end).map((l) => l.slice(open[1].length)).join('\n') });
    i = end;
  }
  return out;
}

/**
 * The @example blocks of a declaration file's doc comments (the comment's `* ` gutter
 * removed; a fenced block inside the example is unwrapped).
 * @returns {{line: number, code: string}[]}
 */
export function exampleSnippets(text) {
  const out = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\*\s*@example\b/.test(lines[i])) continue;
    const body = []; // [line number, text]
    let j = i + 1;
    for (; j < lines.length && !/^\s*\*\//.test(lines[j]) && !/^\s*\*\s*@\w/.test(lines[j]); j++) {
      const text = lines[j].replace(/^\s*\* ?/, '');
      if (!/^```/.test(text)) body.push([j + 1, text]);
    }
    while (body.length && !body[0][1].trim()) body.shift();
    while (body.length && !body.at(-1)[1].trim()) body.pop();
    if (body.length) out.push({ line: body[0][0], code: body.map(([, text]) => text).join('\n') });
    i = j - 1;
  }
  return out;
}

/** A snippet as a module of its own, its loader import pointed at web/agentwasm.mjs. */
function moduleOf(code) {
  const pointed = code.replace(/(from\s*|import\s*\(\s*)(['"])(?:agentwasm|[./\w-]*\/agentwasm\.mjs)\2/g,
    (_, head, quote) => `${head}${quote}${loader}${quote}`);
  return `${pointed}\nexport {};\n`;
}

const snippets = [];
for (const file of markdown) {
  for (const s of markdownSnippets(await readFile(path.join(root, file), 'utf8'))) snippets.push({ file, ...s });
}
for (const file of declarations) {
  for (const s of exampleSnippets(await readFile(path.join(root, file), 'utf8'))) snippets.push({ file, ...s });
}

test('the documentation has snippets to check', () => {
  for (const file of [...markdown, ...declarations]) {
    assert.ok(snippets.some((s) => s.file === file), `${file}: no js or ts block (or @example) found`);
  }
});

test('every js and ts snippet of the documentation compiles under tsc --strict', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentwasm-snippets-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const names = snippets.map((s, i) => `snippet-${String(i + 1).padStart(2, '0')}.mts`);
  await Promise.all(snippets.map((s, i) => writeFile(path.join(dir, names[i]), moduleOf(s.code))));
  // A snippet's other imports (`@opentelemetry/api` in the tracing docs) are web's dev dependencies.
  await symlink(path.join(root, 'web', 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
      lib: ['es2022', 'dom', 'dom.iterable', 'dom.asynciterable'], types: [], skipLibCheck: false,
      // A snippet shows a piece of an app: what it declares and does not use is not an error.
      noUnusedLocals: false, noUnusedParameters: false,
    },
    files: [globals, ...names],
  }, null, 2));
  let output = '';
  try {
    await run(tsc, ['-p', dir, '--pretty', 'false'], { cwd: dir, maxBuffer: 16 << 20 });
  } catch (err) {
    output = `${err.stdout ?? ''}${err.stderr ?? ''}`;
    if (!/error TS\d+/.test(output)) throw new Error(`tsc failed without a diagnostic: ${err.message}\n${output}`);
  }
  // tsc's lines: "snippet-03.mts(12,5): error TS2345: …", maybe followed by indented lines.
  const byFile = new Map();
  let last;
  for (const line of output.split('\n')) {
    const m = /^(?:.*[\\/])?(snippet-\d+\.mts|snippet-globals\.d\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
    if (m) {
      last = m[1];
      byFile.set(last, [...(byFile.get(last) ?? []), { line: Number(m[2]), col: Number(m[3]), text: m[4] }]);
    } else if (last && line.trim()) {
      byFile.get(last).at(-1).text += `\n  ${line.trim()}`;
    }
  }
  const elsewhere = output.split('\n').filter((l) => /error TS\d+/.test(l) && !/snippet-(\d+\.mts|globals\.d\.ts)\(/.test(l));
  assert.deepEqual(byFile.get('snippet-globals.d.ts') ?? [], [], 'snippet-globals.d.ts compiles');
  assert.deepEqual(elsewhere, [], 'tsc reports nothing outside the snippets');
  for (const [i, s] of snippets.entries()) {
    await t.test(`${s.file}:${s.line}`, () => {
      const errors = byFile.get(names[i]) ?? [];
      if (errors.length === 0) return;
      const lines = s.code.split('\n');
      const report = errors.map((e) => `${s.file}:${s.line + e.line - 1}:${e.col}: ${e.text}\n    ${lines[e.line - 1]?.trim() ?? ''}`);
      assert.fail(`the snippet at ${s.file}:${s.line} does not compile under tsc --strict:\n${report.join('\n')}\n--- the snippet ---\n${s.code}`);
    });
  }
});
