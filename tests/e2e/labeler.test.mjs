// The labeler in the browser: two questions labelled with the keyboard only, the set exported,
// and `lens eval --labels` on the export scores as the panel did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lens, corpus, out, serve, launch } from './harness.mjs';

test('label two questions with the keyboard, export, and score as lens eval does', { timeout: 120000 }, async () => {
  const library = mkdtempSync(join(tmpdir(), 'lens-e2e-label-'));
  execFileSync(lens, ['--library', library, 'ingest', '--ocr', 'off', join(corpus, 'financebench/pdfs/3M_2018_10K.pdf')]);
  const { proc, url } = await serve(library);
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    await page.goto(url);
    await page.click('button.tab[data-view=label]');
    await page.waitForFunction(() => document.getElementById('l-set').options.length > 0);
    const kb = page.keyboard;
    const candidates = () => page.$$eval('#l-cands li.cand', (ls) => ls.map((l) => l.dataset.page));
    const waitMsg = (re) => page.waitForFunction((s) => new RegExp(s).test(document.getElementById('l-msg').textContent), re.source);

    // ? shows the keys and guidelines
    await kb.press('?');
    assert.ok(await page.isVisible('#l-help'));
    // ...and says that a grade moves on by itself (2, j, 2 would skip a page)
    assert.match(await page.textContent('#l-help-advance'), /A grade moves to the next page by itself/);
    await kb.press('?');
    assert.ok(await page.isHidden('#l-help'));

    // question 1: '/' to type it, Enter adds it and shows the retriever's pages
    await kb.press('/');
    await kb.type('What is the FY2018 capital expenditure amount (in USD millions) for 3M?');
    await kb.press('Enter');
    await page.waitForSelector('#l-cands li.cand');
    const c1 = await candidates();
    assert.ok(c1.length >= 3, 'candidates: ' + c1.join(', '));
    // each with a thumbnail and a snippet with the question's terms marked
    await page.waitForFunction(() => { const i = document.querySelector('#l-cands img'); return i && i.complete && i.naturalWidth > 0; });
    assert.ok(await page.$$eval('#l-cands mark', (ms) => ms.length) > 0);
    // the pages above the cash flow statement are not relevant (0); it holds the answer (2);
    // each key grades the page in focus and moves on
    const gold1 = c1.indexOf('3M_2018_10K#60');
    assert.ok(gold1 >= 0, 'the cash flow statement is offered: ' + c1.join(', '));
    for (let i = 0; i < gold1; i++) {
      await kb.press('0');
      await page.waitForFunction((n) => document.querySelectorAll('#l-cands li.cand')[n].classList.contains('current'), i + 1);
    }
    await kb.press('2');
    await waitMsg(/#60 graded 2/);
    // v views the page; dragging on it boxes the evidence (stored in page points)
    await page.click('#l-cands li.cand:nth-child(' + (gold1 + 1) + ') .thumb');
    await page.waitForFunction(() => { const i = document.getElementById('l-page-img'); return i.complete && i.naturalWidth > 0; });
    const r = await page.$eval('#l-page-img', (i) => { const b = i.getBoundingClientRect(); return { x: b.x, y: b.y, w: b.width, h: b.height }; });
    await page.mouse.move(r.x + r.w * 0.1, r.y + r.h * 0.3);
    await page.mouse.down();
    await page.mouse.move(r.x + r.w * 0.9, r.y + r.h * 0.35, { steps: 5 });
    await page.mouse.up();
    await waitMsg(/Evidence box saved/);
    await page.click('#l-title'); // back to the keys (focus off the page)
    await kb.press('a'); // write the answer
    await kb.type('$1,577 million');
    await kb.press('Escape');
    await kb.press('Enter'); // save (the last question: the panel says so)
    await waitMsg(/last question/);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(out, 'labeler.png') });

    // question 2: j moves, 1 grades, u undoes it, 2 grades again; Ctrl+Enter saves from the answer
    await kb.press('/');
    await kb.type('What was 3M total net sales in 2018?');
    await kb.press('Enter');
    await page.waitForFunction(() => document.getElementById('l-title').textContent.includes('net sales'));
    await page.waitForSelector('#l-cands li.cand');
    const c2 = await candidates();
    await kb.press('j');
    await page.waitForFunction(() => document.querySelectorAll('#l-cands li.cand')[1].classList.contains('current'));
    await kb.press('1');
    await waitMsg(/graded 1/);
    await kb.press('u');
    await waitMsg(/Undone: .* ungraded/);
    await kb.press('2');
    await waitMsg(/graded 2/);
    await kb.press('a');
    await kb.type('$32,765 million');
    await kb.press('Control+Enter');
    await waitMsg(/last question/);

    // the panel's score, then the export
    await page.selectOption('#l-retriever', 'bm25');
    await page.click('#l-score');
    await page.waitForSelector('#l-score-table');
    const panel = await page.$$eval('#l-score-table tbody tr:first-child td', (tds) => tds.map((t) => t.textContent));
    assert.equal(panel[0], 'all');
    assert.equal(panel[1], '2');
    await page.screenshot({ path: join(out, 'labeler-score.png') });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#l-export')]);
    const file = join(mkdtempSync(join(tmpdir(), 'lens-e2e-labels-')), download.suggestedFilename());
    await download.saveAs(file);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, 2);
    assert.deepEqual(lines[0].gold, Object.fromEntries(c1.slice(0, gold1 + 1).map((p, i) => [p, i === gold1 ? 2 : 0])));
    const box = lines[0].labeler.evidence_boxes[0];
    assert.equal(box.page, '3M_2018_10K#60');
    assert.ok(box.l > 0 && box.r < 612 && box.b > 0 && box.t < 792 && box.l < box.r && box.b < box.t, JSON.stringify(box));
    assert.equal(lines[0].answer, '$1,577 million');
    assert.deepEqual(lines[1].gold, { [c2[1]]: 2 });
    assert.equal(lines[1].answer, '$32,765 million');
    assert.deepEqual(lines[0].labeler.annotators, ['annotator']);

    // lens eval on the export: the panel's figures
    const runs = mkdtempSync(join(tmpdir(), 'lens-e2e-runs-'));
    const cli = execFileSync(lens, ['--library', library, 'eval', '--labels', file, '--retriever', 'bm25', '--runs-dir', runs, '--json']).toString().trim().split('\n');
    const s = JSON.parse(cli[cli.length - 1]);
    assert.equal(s.n, 2);
    assert.deepEqual(panel.slice(2), [s.ndcg5, s.recall5, s.hit3, s.mrr].map((x) => x.toFixed(3)));
  } finally {
    await browser.close();
    proc.kill();
  }
});
