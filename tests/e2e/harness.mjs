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

// `lens serve` on `library` with an empty models folder (no embedding model at hand); resolves
// to {proc, url} once it prints its URL.
export function serve(library) {
  return new Promise((ok, fail) => {
    const models = mkdtempSync(join(tmpdir(), 'lens-e2e-models-'));
    const p = spawn(lens, ['--library', library, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LENS_MODELS: models } });
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
// message lines: each word (text between spaces; a hyphen after a letter or an id's <wbr>
// marks may end a line, a date's hyphens may not) is measured with a Range, and a word whose glyph boxes sit on two lines is broken
// ("Remov/e", "FY201/7"). Returns "word (where)" for each.
export async function brokenWords(page, root) {
  return page.$$eval(`${root} td, ${root} th, ${root} button, ${root} li, ${root} p, ${root} summary, header button`, (els) => {
    const out = [];
    for (const e of els) {
      if (e.offsetParent === null || e.closest('[hidden]') || e.closest('details:not([open]) > :not(summary)')) continue;
      const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        // a text node inside a nested element of the same kind is checked there
        if (n.parentElement !== e && n.parentElement.closest('td, th, button, li, p, summary') !== e) continue;
        // the service's own words behind Details (paths, codes) wrap anywhere by design
        const d = n.parentElement.closest('details');
        if (d && !n.parentElement.closest('summary')) continue;
        const text = n.textContent;
        // a word may end a line after a hyphen that follows a letter ("dated-"), never inside
        // a number or date ("2026-/12-03")
        const re = /(?:[^\s\-–—]|(?<![A-Za-z])[\-–—])+(?:(?<=[A-Za-z])[\-–—])?/g;
        for (let m = re.exec(text); m; m = re.exec(text)) {
          if (m[0].length < 2) continue;
          const r = document.createRange();
          r.setStart(n, m.index);
          r.setEnd(n, m.index + m[0].length);
          const tops = new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)));
          if (tops.size > 1) out.push(`${m[0]} (${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}: "${e.textContent.trim().slice(0, 40)}")`);
        }
      }
    }
    return out;
  });
}
