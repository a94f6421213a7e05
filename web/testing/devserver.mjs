// `agentwasm dev` for the browser tests: started on a free loopback port,
// its URL read from the line it prints, its request log (stderr) handed to
// the test and kept, in its last 4,000 characters, for the error of a start
// that fails.
import { spawn } from 'node:child_process';

/**
 * Starts `binary dev --addr 127.0.0.1:0 …args`.
 * @param {string} binary the agentwasm binary (dist/agentwasm)
 * @param {string[]} args the flags after --addr
 * @param {{cwd?: string, env?: NodeJS.ProcessEnv, onLog?: (text: string) => void}} [options]
 * @returns {{child: import('node:child_process').ChildProcess, url: Promise<string>}} the process
 *   (kill it when done) and its URL (http://127.0.0.1:port), or a rejection when it exits or prints
 *   no URL within 20 s
 */
export function startDevServer(binary, args, { cwd, env, onLog } = {}) {
  const child = spawn(binary, ['dev', '--addr', '127.0.0.1:0', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk) => {
    onLog?.(String(chunk));
    log = (log + chunk).slice(-4000);
  });
  const url = new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`agentwasm dev printed no URL within 20 s: ${out}${log}`)), 20000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/open (http:\/\/127\.0\.0\.1:\d+)\//);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`agentwasm dev exited with ${code}: ${out}${log}`));
    });
  });
  return { child, url };
}
