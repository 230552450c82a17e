// What a new user trips over: an empty library's hint, files listed while they are added, plain
// messages, clean company names, feedback buttons that look unchosen, an icon, and every view
// laid out without cut-off controls at 1280, 1024, 800 and 480 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpus, out, serve, launch, brokenWords } from './harness.mjs';

// the message lines a user reads: no internal folder and no code name in any of them
const MESSAGES = ['#lib-msg', '#ask-msg', '#settings-msg', '#dense-msg', '#vision-msg', '#s-models-info', '#support', '#ingest-status', '#watch-msg', '#calc-result', '#answer-meta'];
const CODES = /\b(?:model_missing|pdf_corrupt|pdf_encrypted|pdf_empty|not_pdf|bad_input|unknown_document|unknown_page|pdfium_missing)\b|\[[a-z_]+\]/;
const PATHS = /(?:\/tmp\/|\/home\/|\/root\/|\/usr\/|\.local\/share|\.cache\/)/;

async function messagesArePlain(page, where) {
  for (const sel of MESSAGES) {
    // what is shown: a closed "Details" keeps the service's own words out of sight
    const text = await page
      .$eval(sel, (e) => {
        const c = e.cloneNode(true);
        for (const d of c.querySelectorAll('details')) if (!d.open) for (const x of d.querySelectorAll('code')) x.remove();
        return c.textContent;
      })
      .catch(() => '');
    assert.doesNotMatch(text, PATHS, `${where}: ${sel} shows a folder: ${text}`);
    assert.doesNotMatch(text, CODES, `${where}: ${sel} shows a code name: ${text}`);
  }
}

// every visible control of the open view lies inside the viewport
async function controlsFit(page, view, width) {
  const outside = await page.$$eval(`#view-${view} button, #view-${view} input:not([type=file]):not(.hidden-file), #view-${view} select, #view-${view} label.button, header button`, (els) =>
    els
      .filter((e) => e.offsetParent !== null && !e.closest('[hidden]') && !e.closest('details:not([open])'))
      .map((e) => ({ id: e.id || e.getAttribute('aria-label') || e.textContent.trim(), r: e.getBoundingClientRect() }))
      .filter((x) => x.r.width > 0 && (x.r.right > window.innerWidth + 1 || x.r.left < -1))
      .map((x) => `${x.id} (${Math.round(x.r.left)}..${Math.round(x.r.right)})`),
  );
  assert.deepEqual(outside, [], `${view} at ${width} px: controls outside the window`);
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(scroll <= 1, `${view} at ${width} px: the page scrolls sideways by ${scroll} px`);
}

test('first run: hints, progress, plain messages, clean names, neutral feedback, layouts that fit', { timeout: 180000 }, async () => {
  const library = mkdtempSync(join(tmpdir(), 'lens-e2e-first-'));
  const files = mkdtempSync(join(tmpdir(), 'lens-e2e-first-files-'));
  symlinkSync(join(corpus, 'financebench/pdfs/AMAZON_2017_10K.pdf'), join(files, 'AMAZON_2017_10K.pdf'));
  writeFileSync(join(files, 'broken.pdf'), '%PDF-1.7\nthis is not a complete PDF\n');
  const { proc, url } = await serve(library);
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const missing = [];
    page.on('response', (r) => { if (r.status() === 404) missing.push(r.url()); });
    const consoleErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    await page.goto(url);

    // an empty library: the Ask view says to add filings first, and its button leads there
    await page.waitForSelector('#empty-hint:not([hidden])');
    // "Search in" on an empty library says there is nothing to pick, never "0 selected"
    // (the list is filled when the documents arrive, which may be after the hint)
    await page.waitForFunction(() => document.getElementById('scope').disabled);
    assert.equal(await page.textContent('#scope'), 'No filings yet');
    assert.match(await page.textContent('#empty-hint'), /The library is empty: add filings/);
    // the tab's icon is served
    const icon = await page.request.get(new URL(url).origin + '/favicon.ico');
    assert.equal(icon.status(), 200);
    assert.equal(icon.headers()['content-type'], 'image/png');

    // the pages-to-read box has a label one sees
    assert.ok(await page.isVisible('label[for=k]'));
    assert.equal(await page.textContent('label[for=k]'), 'Pages');
    // the hint's "Add filings" opens the file picker with its one click (not only the Library)
    const chooser = page.waitForEvent('filechooser', { timeout: 5000 });
    await page.click('#empty-add');
    await chooser;
    assert.ok(await page.isVisible('#view-library'));

    // adding files: each is listed at once, with its progress; a broken one says so in plain words
    await page.click('button.tab[data-view=library]');
    assert.match(await page.textContent('#lib-msg'), /No documents yet/);
    await page.setInputFiles('#file-input', [join(files, 'AMAZON_2017_10K.pdf'), join(files, 'broken.pdf')]);
    await page.waitForFunction(() => document.querySelectorAll('#ingest-status li').length >= 2, null, { timeout: 5000 });
    const listed = await page.textContent('#ingest-status');
    assert.match(listed, /AMAZON_2017_10K/);
    await page.waitForSelector('#docs tr[data-doc="AMAZON_2017_10K"]', { timeout: 90000 });
    await page.waitForSelector('#ingest-status li.error');
    assert.match(await page.textContent('#ingest-status li.error'), /broken/);
    await messagesArePlain(page, 'after adding files');
    // the company as its cover page prints it, without the rules around it
    const company = await page.textContent('#docs tr[data-doc="AMAZON_2017_10K"] td:nth-child(3)');
    assert.equal(company.trim(), 'Amazon.com, Inc.');
    assert.doesNotMatch(await page.textContent('#docs tr[data-doc="AMAZON_2017_10K"] td:first-child'), /_{3,}/);

    // ask: the hint is gone; the feedback buttons look unchosen until one is clicked
    await page.click('button.tab[data-view=ask]');
    assert.ok(await page.isHidden('#empty-hint'));
    await page.fill('#q', "What is Amazon's FY2017 current ratio? Round your answer to two decimal places.");
    await page.click('#ask-btn');
    await page.waitForSelector('#answer:not([hidden])', { timeout: 60000 });
    await page.waitForFunction(() => document.getElementById('answer-meta').textContent.includes('pages found in'));
    // the worked calculation's operands are printed with their thousands separators
    assert.match(await page.textContent('#calc-operands tbody'), /\d,\d{3}/);
    const neutral = await page.$$eval('.feedback button', (bs) => bs.map((b) => [b.getAttribute('aria-pressed'), getComputedStyle(b).backgroundColor]));
    for (const [pressed, bg] of neutral) {
      assert.equal(pressed, 'false');
      assert.match(bg, /rgba\(0, 0, 0, 0\)|transparent/, 'an unchosen feedback button is not filled');
    }
    await page.click('#fb-up');
    await page.waitForFunction(() => document.getElementById('fb-up').getAttribute('aria-pressed') === 'true');
    assert.equal(await page.getAttribute('#fb-down', 'aria-pressed'), 'false');
    await messagesArePlain(page, 'after an answer');

    // a library as a user's grows: filings with long names and aliases, answers with long
    // quotes in the Log (words broke in two there: "Remov/e", a quote column a few letters wide)
    await page.click('button.tab[data-view=library]');
    await page.setInputFiles('#file-input', [join(corpus, 'financebench/pdfs/JOHNSON_JOHNSON_2023Q2_EARNINGS.pdf'), join(corpus, 'financebench/pdfs/AMCOR_2022_8K_dated-2022-07-01.pdf'), join(corpus, 'financebench/pdfs/ULTABEAUTY_2023Q4_EARNINGS.pdf')]);
    await page.waitForSelector('#docs tr[data-doc="AMCOR_2022_8K_dated-2022-07-01"]', { timeout: 90000 });
    await page.waitForSelector('#docs tr[data-doc="JOHNSON_JOHNSON_2023Q2_EARNINGS"]', { timeout: 90000 });
    // a release's period from its title page ("Fourth Quarter Fiscal 2022 Results"), not its
    // file name's 2023
    await page.waitForSelector('#docs tr[data-doc="ULTABEAUTY_2023Q4_EARNINGS"]', { timeout: 90000 });
    await page.waitForFunction(() => /^Ulta Beauty Q4 FY2022 earnings/.test(document.querySelector('#docs tr[data-doc="ULTABEAUTY_2023Q4_EARNINGS"] td:first-child').textContent), null, { timeout: 30000 });
    // the company as the release prints it, its aliases as a user writes them
    assert.match(await page.textContent('#docs tr[data-doc="JOHNSON_JOHNSON_2023Q2_EARNINGS"] td:nth-child(3)'), /^Johnson & Johnson$/);
    const aliases = await page.textContent('#docs tr[data-doc="JOHNSON_JOHNSON_2023Q2_EARNINGS"] td.aliases');
    assert.match(aliases, /J&J/);
    assert.doesNotMatch(aliases, /johnsonjohnson/);
    await page.click('button.tab[data-view=ask]');
    // "Search in" shows every filing (four here), none hidden below a scroll
    await page.waitForFunction(() => document.getElementById('scope').options.length === 4);
    assert.equal(await page.$eval('#scope', (s) => s.size), 4);
    for (const q of ['Which notes are covered by the supplemental indentures of Amcor Finance (USA) and Amcor Flexibles North America?', "What does Johnson & Johnson say about its 2023 full-year guidance for adjusted operational sales?"]) {
      await page.fill('#q', q);
      await page.click('#ask-btn');
      await page.waitForFunction((q) => document.getElementById('ask-msg').textContent !== '' || document.getElementById('answer-meta').textContent.includes('pages found in'), q);
      await page.waitForFunction(() => !document.getElementById('ask-btn').disabled);
    }

    // every view at four widths: no control past the window's edge; cards name their fields
    for (const width of [1280, 1024, 800, 480]) {
      await page.setViewportSize({ width, height: 800 });
      for (const view of ['ask', 'library', 'log', 'label', 'settings']) {
        await page.click(`button.tab[data-view=${view}]`);
        if (view === 'log') await page.waitForSelector('#log tbody tr');
        if (view === 'library') await page.waitForSelector('#docs tbody tr');
        await page.waitForTimeout(150);
        await controlsFit(page, view, width);
        // no word broken in two inside a cell, a button or a message ("Remov/e", "1/5")
        assert.deepEqual(await brokenWords(page, `#view-${view}`), [], `${view} at ${width} px: words broken across lines`);
        if ((width === 480 || width === 800) && (view === 'library' || view === 'log')) {
          const table = view === 'library' ? '#docs' : '#log';
          const labels = await page.$$eval(`${table} tbody tr:first-child td`, (tds) => tds.map((td) => [td.dataset.label || '', td.textContent.trim(), getComputedStyle(td, '::before').content]));
          for (const [label, text, before] of labels) {
            if (label && text) assert.ok(before.includes(label), `${view} card: "${text}" is shown without its field name ${label}`);
          }
          await page.screenshot({ path: join(out, `${view}-${width}.png`), fullPage: true });
        }
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.click('button.tab[data-view=library]');
    await page.screenshot({ path: join(out, 'library-1280.png') });
    await messagesArePlain(page, 'after every view');
    assert.deepEqual(missing, [], 'no request answered 404');
    assert.deepEqual(consoleErrors.filter((e) => /404/.test(e)), []);
  } finally {
    await browser.close();
    proc.kill();
  }
});
