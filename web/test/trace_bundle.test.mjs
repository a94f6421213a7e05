// Node tests of the trace module's place in a bundle: esbuild, given the loader,
// splits agentwasm-trace.mjs into a chunk of its own (with code splitting) or
// inlines it (without), and either bundle makes a turn's spans; a bundle of a
// page that never passes a tracer still carries the trace code only as that
// chunk, which nothing loads. The minified loader dist/ ships (make build)
// loads the minified trace module beside it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { dist, variant, variantFiles, scriptedRounds } from '../testing/helpers.mjs';

const web = fileURLToPath(new URL('../', import.meta.url));
const esbuild = createRequire(path.join(web, 'package.json'))('esbuild');
let dir;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentwasm-trace-bundle-'));
  await writeFile(path.join(dir, 'entry.mjs'), `export { load } from ${JSON.stringify(pathToFileURL(path.join(web, 'agentwasm.mjs')).pathname)};\n`);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A turn of a session with a tracer, through the load function given; resolves with the span names. */
async function tracedTurn(load) {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('bundle');
  const files = variantFiles[variant];
  const runtime = await load({ variant, wasm: new URL(files.wasm, dist), wasmExec: new URL(files.wasmExec, dist) });
  const session = runtime.createSession({
    tracer, disableToolDiscovery: true, tools: [{ name: 'ping', execute: () => 'pong' }], transport: scriptedRounds([[{ name: 'ping', args: {} }], 'done']),
  });
  const turn = await session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  session.close();
  return exporter.getFinishedSpans().map((s) => s.name);
}

const names = ['chat', 'execute_tool ping', 'chat', 'invoke_agent'];

for (const splitting of [true, false]) {
  test(`esbuild ${splitting ? 'splits the trace module into a chunk' : 'inlines the trace module'}, and the bundle traces`, async () => {
    const outdir = path.join(dir, splitting ? 'split' : 'inline');
    await esbuild.build({
      entryPoints: [path.join(dir, 'entry.mjs')], bundle: true, format: 'esm', platform: 'neutral', splitting, outdir, logLevel: 'silent',
    });
    const files = (await readdir(outdir)).sort();
    const entry = await readFile(path.join(outdir, 'entry.js'), 'utf8');
    if (splitting) {
      assert.equal(files.length, 2, files.join());
      const chunk = files.find((f) => f !== 'entry.js');
      assert.match(await readFile(path.join(outdir, chunk), 'utf8'), /function tapSession/);
      assert.doesNotMatch(entry, /function tapSession/, 'the trace code is not in the loader\'s bundle');
      assert.match(entry, new RegExp(`import\\("\\./${chunk.replace('.', '\\.')}"\\)`));
    } else {
      assert.deepEqual(files, ['entry.js']);
      assert.match(entry, /function tapSession/);
    }
    const { load } = await import(pathToFileURL(path.join(outdir, 'entry.js')).href);
    assert.deepEqual(await tracedTurn(load), names);
  });
}

test('the minified loader of dist/ loads the minified trace module beside it', {
  skip: !existsSync(new URL('agentwasm.mjs', dist)) || !existsSync(new URL('agentwasm-trace.mjs', dist)) ? 'make build first (dist/agentwasm.mjs, dist/agentwasm-trace.mjs)' : false,
}, async () => {
  const copy = path.join(dir, 'dist');
  await rm(copy, { recursive: true, force: true });
  await import('node:fs/promises').then((fs) => fs.mkdir(copy));
  for (const file of ['agentwasm.mjs', 'agentwasm-trace.mjs']) await copyFile(new URL(file, dist), path.join(copy, file));
  const { load } = await import(pathToFileURL(path.join(copy, 'agentwasm.mjs')).href);
  assert.deepEqual(await tracedTurn(load), names);
});
