// What the browser tests share: where things are, `lens serve` on a library, Debian's chromium.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '../..');
export const lens = process.env.LENS_BIN || join(repo, 'target/debug/lens');
export const corpus = process.env.LENS_CORPUS || resolve(repo, '../shared/corpus');
// screenshots (README shows some of them)
export const out = join(here, 'out');
mkdirSync(out, { recursive: true });

// `lens serve` on `library` with an empty models folder (no embedding model at hand), the temp
// folder an ingest root (the tests' watched folders are made there); resolves to {proc, url}
// once it prints its URL.
export function serve(library) {
  return new Promise((ok, fail) => {
    const models = mkdtempSync(join(tmpdir(), 'lens-e2e-models-'));
    const p = spawn(lens, ['--library', library, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LENS_MODELS: models, LENS_INGEST_ROOTS: tmpdir() } });
    let buf = '';
    p.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/);
      if (m) ok({ proc: p, url: m[1] });
    });
    p.on('exit', (c) => fail(new Error('lens serve exited ' + c)));
    setTimeout(() => fail(new Error('lens serve did not start')), 15000);
  });
}

// Debian's chromium, headless, with what this machine's closed network needs.
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// Words broken in two across lines inside the open view's cells, buttons, list items and
// message lines, measured in the page by ui/probe.js (the same measurement the desktop window's
// test asks the app for): "word (where)" for each.
export async function brokenWords(page, root) {
  return page.evaluate((r) => window.lensProbe.brokenWords(r), root);
}
