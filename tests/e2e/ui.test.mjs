// Browser end-to-end test: `lens serve` with real corpus PDFs, driven in Debian's chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, symlinkSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, lens, corpus, out, serve, launch } from './harness.mjs';

test('upload, ask, see the highlighted page, give feedback, find it in the log', { timeout: 120000 }, async () => {
  const library = mkdtempSync(join(tmpdir(), 'lens-e2e-'));
  const files = mkdtempSync(join(tmpdir(), 'lens-e2e-files-'));
  symlinkSync(join(corpus, 'financebench/pdfs/3M_2018_10K.pdf'), join(files, '3M_2018_10K.pdf'));
  writeFileSync(join(files, 'notes.txt'), 'not a pdf');
  const { proc, url } = await serve(library);
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const origin = new URL(url).origin;

    // the API refuses requests without the token
    const denied = await page.request.post(origin + '/api/documents', { data: {} });
    assert.equal(denied.status(), 401);

    await page.goto(url);
    await page.click('button.tab[data-view=library]');
    // a non-PDF is refused inline, naming the file; the PDF is ingested with progress shown
    await page.setInputFiles('#file-input', [join(files, 'notes.txt'), join(files, '3M_2018_10K.pdf')]);
    await page.waitForSelector('#ingest-status li.error');
    assert.match(await page.textContent('#ingest-status li.error'), /notes\.txt: not a PDF/);
    await page.screenshot({ path: join(out, 'ingest-progress.png') });
    await page.waitForSelector('#ingest-status li.done', { timeout: 60000 });
    assert.match(await page.textContent('#ingest-status li.done'), /3M_2018_10K: 160 pages/);
    await page.waitForSelector('#docs tr[data-doc="3M_2018_10K"]');
    // the filing by the name its cover page prints, its period and form
    assert.match(await page.textContent('#docs tr[data-doc="3M_2018_10K"] td:first-child'), /^3M Company FY2018 10-K/);
    await page.screenshot({ path: join(out, 'library.png') });

    // ask: empty question -> inline message; a real question -> answer, quote, highlighted page
    await page.click('button.tab[data-view=ask]');
    await page.click('#ask-btn');
    assert.equal(await page.textContent('#ask-msg'), 'Type a question first.');
    await page.fill('#q', 'What is the FY2018 capital expenditure amount (in USD millions) for 3M? Give a response to the question by relying on the details shown in the cash flow statement.');
    // the answer is streamed: pages first, then text, as newline-delimited JSON events
    const streamed = page.waitForResponse((r) => r.url().includes('/api/ask_stream'));
    await page.click('#ask-btn');
    const sr = await streamed;
    assert.equal(sr.headers()['content-type'], 'application/x-ndjson');
    // the page consumes its stream; the same endpoint, read here, shows the event order
    const direct = await page.request.post(origin + '/api/ask_stream', {
      data: { question: 'What is the FY2018 capital expenditure amount for 3M?' },
      headers: { 'x-lens-token': new URL(url).searchParams.get('token') },
    });
    const events = (await direct.text()).trim().split('\n').map((l) => JSON.parse(l).event);
    assert.equal(events[0], 'pages');
    assert.equal(events[events.length - 1], 'done');
    assert.ok(events.includes('text'));
    await page.waitForSelector('#answer:not([hidden])');
    await page.waitForFunction(() => document.getElementById('answer-meta').textContent.includes('pages found in'));
    const answer = await page.textContent('#answer-text');
    assert.match(answer, /1,577/);
    // the question as read, in one line, above the answer
    assert.equal(await page.textContent('#reading'), 'Read as: value · capital expenditure amount · FY2018 · 3m · answer in USD millions');
    // a computed answer traced to its cells is shown as supported
    assert.equal(await page.textContent('#support'), 'Supported by the cited page');
    assert.match(await page.textContent('#pages-read'), /3M_2018_10K#60/);
    // each page read shows its heading and the lines that matched, the question's words marked
    assert.match(await page.textContent('#pages-read'), /Consolidated Statement of Cash Flow/);
    assert.ok(await page.$$eval('#pages-read mark', (ms) => ms.length) > 0);
    // side by side at 1280 px: the page to the right of the answer, its box scrolled into view on arrival
    const [ab, vb] = [await page.locator('#answer').boundingBox(), await page.locator('#viewer').boundingBox()];
    assert.ok(vb.x > ab.x + ab.width - 1, 'viewer beside the answer: ' + JSON.stringify([ab, vb]));
    await page.waitForFunction(() => document.getElementById('viewer-scroll').scrollTop > 0);
    // the worked calculation: the result and its operand, which links to its page
    await page.waitForSelector('#calc:not([hidden])');
    assert.match(await page.textContent('#calc-result'), /\$1,577 million/);
    // a figure read as printed is a look-up: not called a calculation
    assert.equal(await page.textContent('#calc-h'), 'Where the figure comes from');
    // the operand as the statement prints it, with its thousands separator
    assert.match(await page.textContent('#calc-operands'), /FY2018.*-1,577.*millions.*3M_2018_10K#60/s);
    // the verifier's checks under it: a line of counts, each check's detail in words
    await page.waitForSelector('#checks:not([hidden])');
    assert.match(await page.textContent('#checks-summary'), /^Checks: \d+ passed/);
    assert.match(await page.textContent('#checks-list'), /range .*: .*capital expenditure/s);
    // the operands' pages as a strip of thumbnails with their boxes
    await page.waitForFunction(() => { const i = document.querySelector('#calc-strip img'); return i && i.complete && i.naturalWidth > 0; });
    assert.match(decodeURIComponent(await page.getAttribute('#calc-strip img', 'src')), /page=60.*boxes=\[/);
    await page.waitForFunction(() => { const i = document.getElementById('page-img'); return i.complete && i.naturalWidth > 0; });
    const src = await page.getAttribute('#page-img', 'src');
    assert.match(src, /page=60/);
    // the page image draws the boxes the ask returned (the server does not locate again)
    assert.match(decodeURIComponent(src), /boxes=\[\{"l":/);
    // the highlight is in the image: some pixels have the box fill colour
    const yellow = await page.evaluate(() => {
      const i = document.getElementById('page-img');
      const c = document.createElement('canvas');
      c.width = i.naturalWidth; c.height = i.naturalHeight;
      const g = c.getContext('2d'); g.drawImage(i, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (d[k] > 200 && d[k + 1] > 190 && d[k + 2] < 170) n++;
      return n;
    });
    assert.ok(yellow > 1000, 'highlight pixels: ' + yellow);
    // the detected scope is shown as a chip; removing it searches everything
    assert.match(await page.textContent('#chips'), /3M Company FY2018 10-K ×/);
    assert.match(await page.textContent('#viewer-title'), /^3M Company FY2018 10-K · /);
    assert.match(await page.textContent('#answer-meta'), /by keyword search · answered in \d+ ms, worked out by the calculator on this computer's processor/);
    // keyboard: n / p turn pages only while the page viewer has focus (typed letters elsewhere
    // never turn pages); a click on the page gives it focus, shown by a ring
    const title0 = await page.textContent('#viewer-title');
    await page.click('#answer-text');
    await page.keyboard.press('n');
    await page.waitForTimeout(300);
    assert.equal(await page.textContent('#viewer-title'), title0, 'n typed outside the viewer turned the page');
    await page.click('#page-img');
    assert.ok(await page.$eval('#viewer-scroll', (e) => e.classList.contains('focused') && getComputedStyle(e).outlineStyle !== 'none'), 'the focused viewer shows a ring');
    await page.keyboard.press('n');
    await page.waitForFunction(() => document.getElementById('viewer-title').textContent.endsWith('page 61'));
    await page.keyboard.press('p');
    await page.waitForFunction(() => document.getElementById('viewer-title').textContent.endsWith('p. 60'));
    // zoomed in, the boxed cell at the right of its row is scrolled into view sideways too
    for (let i = 0; i < 3; i++) await page.click('#v-zoom-in');
    await page.waitForFunction(() => { const i = document.getElementById('page-img'); return i.complete && i.naturalWidth > 1500; });
    await page.click('#v-jump');
    await page.waitForFunction(() => document.getElementById('viewer-scroll').scrollLeft > 0);
    for (let i = 0; i < 3; i++) await page.click('#v-zoom-out');
    await page.waitForFunction(() => { const i = document.getElementById('page-img'); return i.complete && i.naturalWidth < 1500; });
    await page.click('#v-jump');
    await page.screenshot({ path: join(out, 'ask.png') });

    // feedback, then the log view shows it
    await page.fill('#fb-note', 'right row, wrong sign');
    await page.click('#fb-down');
    await page.waitForFunction(() => document.getElementById('fb-msg').textContent.includes('marked wrong'));
    await page.click('button.tab[data-view=log]');
    await page.waitForSelector('#log tbody tr');
    assert.match(await page.textContent('#log tbody'), /✗ wrong right row, wrong sign/);
    // each row says how its answer was shown, and who answered it in words
    assert.equal(await page.textContent('#log tbody tr:has-text("✗ wrong") td.label-supported'), 'supported');
    assert.match(await page.textContent('#log tbody tr:has-text("✗ wrong")'), /calculator/);
    assert.doesNotMatch(await page.textContent('#log tbody'), /extractive/);
    // each row shows its cited page and quote; the cited page reopens the answer, boxed
    assert.match(await page.textContent('#log tbody'), /3M_2018_10K#60 · p\. 60/);
    await page.screenshot({ path: join(out, 'log.png') });
    await page.click('#log tbody tr:has-text("✗ wrong") button[aria-label^="Reopen answer"]');
    await page.waitForFunction(() => document.getElementById('ask-msg').textContent.includes('from the log'));
    assert.match(await page.textContent('#answer-text'), /1,577/);
    // the question as asked in the box (never "[object Object]"), the label as shown when asked
    assert.match(await page.inputValue('#q'), /^What is the FY2018 capital expenditure amount/);
    assert.equal(await page.textContent('#support'), 'Supported by the cited page');
    await page.waitForFunction(() => decodeURIComponent(document.getElementById('page-img').getAttribute('src') || '').includes('boxes=[{"l":'));
    // the workpaper of this answer: one self-contained HTML file with the boxed page inline
    const [wpHtml] = await Promise.all([page.waitForEvent('download'), page.click('#wp-html')]);
    assert.match(wpHtml.suggestedFilename(), /^workpaper-\d+\.html$/);
    const wpDir = mkdtempSync(join(tmpdir(), 'lens-e2e-wp-'));
    await wpHtml.saveAs(join(wpDir, 'wp.html'));
    const html = readFileSync(join(wpDir, 'wp.html'), 'utf8');
    for (const want of ['capital expenditure', '1,577', 'sha256', '3M_2018_10K.pdf', 'marked wrong: right row, wrong sign', 'data:image/png;base64,']) assert.ok(html.includes(want), 'workpaper lacks ' + want);
    assert.ok(!html.includes('<script'), 'no script in a workpaper');
    await page.waitForFunction(() => document.getElementById('wp-msg').textContent.startsWith('Workpaper saved'));
    // the saved line sits above the buttons, where their tooltips (opened below the pointer) never cover it
    const [msgBox, btnBox] = [await page.locator('#wp-msg').boundingBox(), await page.locator('#wp-html').boundingBox()];
    assert.ok(msgBox.y + msgBox.height <= btnBox.y + 1, 'the saved line is above the buttons: ' + JSON.stringify([msgBox, btnBox]));
    // the answer's figures as a spreadsheet: CSV rows with period, value, page, box and sha256;
    // the same as an Excel workbook; the page's tables as a workbook from the viewer
    const [xCsv] = await Promise.all([page.waitForEvent('download'), page.click('#x-csv')]);
    assert.match(xCsv.suggestedFilename(), /^answers-\d+\.csv$/);
    await xCsv.saveAs(join(wpDir, 'answer.csv'));
    const csv = readFileSync(join(wpDir, 'answer.csv'), 'utf8').split('\r\n');
    assert.match(csv[0], /^Log id,Question,Kind,Item,Period,Value,As printed,Unit,Page,Printed page,Box left \(pt\),.*,File,sha256$/);
    assert.match(csv[1], /,operand,.*,FY2018,-1577,.*,millions,3M_2018_10K#60,p\. 60,[\d.]+,[\d.]+,[\d.]+,[\d.]+,.*,3M_2018_10K\.pdf,[0-9a-f]{64}$/);
    await page.waitForFunction(() => document.getElementById('wp-msg').textContent.startsWith('Spreadsheet saved'));
    const [xXlsx] = await Promise.all([page.waitForEvent('download'), page.click('#x-xlsx')]);
    assert.match(xXlsx.suggestedFilename(), /^answers-\d+\.xlsx$/);
    await xXlsx.saveAs(join(wpDir, 'answer.xlsx'));
    assert.equal(readFileSync(join(wpDir, 'answer.xlsx')).subarray(0, 2).toString(), 'PK');
    const [tables] = await Promise.all([page.waitForEvent('download'), page.click('#v-tables')]);
    assert.equal(tables.suggestedFilename(), '3M_2018_10K-p60-tables.xlsx');
    await page.waitForFunction(() => document.getElementById('wp-msg').textContent.startsWith('Tables saved'));
    // opened from disk it shows the page with nothing fetched: screenshot for README
    const wpPage = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
    await wpPage.goto('file://' + join(wpDir, 'wp.html'));
    await wpPage.screenshot({ path: join(out, 'workpaper.png') });
    await wpPage.close();
    // two answers ticked in the log, as a PDF
    await page.click('button.tab[data-view=log]');
    await page.waitForSelector('#log tbody tr');
    assert.ok(await page.isDisabled('#log-wp-pdf'), 'nothing ticked yet');
    for (const box of await page.$$('#log tbody input[type=checkbox]')) await box.check();
    assert.match(await page.textContent('#log-wp-html'), /Workpaper of 2 answers/);
    assert.match(await page.textContent('#log-wp-pdf'), /Workpaper of 2 answers \(PDF\)/);
    const [wpPdf] = await Promise.all([page.waitForEvent('download'), page.click('#log-wp-pdf')]);
    assert.match(wpPdf.suggestedFilename(), /^workpaper-\d+-\d+\.pdf$/);
    await wpPdf.saveAs(join(wpDir, 'wp.pdf'));
    assert.equal(readFileSync(join(wpDir, 'wp.pdf')).subarray(0, 5).toString(), '%PDF-');
    // Ctrl+E exports the Log as JSONL (in the app, through the native save dialog)
    const [logFile] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Control+e')]);
    assert.equal(logFile.suggestedFilename(), 'lens-question-log.jsonl');
    await logFile.saveAs(join(wpDir, 'log.jsonl'));
    const exported = readFileSync(join(wpDir, 'log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(exported.length, 2);
    assert.ok(exported.every((r) => r.question && r.time), 'each exported row has its question and time');
    await page.waitForFunction(() => document.getElementById('log-msg').textContent.startsWith('Exported 2 questions'));
    // Alt+1 goes back to Ask
    await page.keyboard.press('Alt+1');
    await page.waitForFunction(() => !document.getElementById('view-ask').hidden);
    await page.click('button.tab[data-view=log]');

    // ...and in SQLite, through the CLI
    const log = execFileSync(lens, ['--library', library, 'log', '--json']).toString().trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(log.length, 2);
    const marked = log.filter((r) => r.feedback === -1);
    assert.equal(marked.length, 1);
    assert.equal(marked[0].feedback_note, 'right row, wrong sign');

    // one click makes the thumbs-down a question to label, with the answer, note and pages it read
    await page.click('button.tab[data-view=log]');
    await page.waitForSelector('#log tbody tr');
    await page.click('#log tbody tr:has-text("✗ wrong") button[aria-label^="Label question"]');
    await page.waitForFunction(() => document.getElementById('l-origin').textContent.includes('marked wrong: right row, wrong sign'));
    await page.waitForSelector('#l-cands li.cand[data-page="3M_2018_10K#60"]');

    // a statement row answers with each figure's year and unit
    await page.click('button.tab[data-view=ask]');
    await page.fill('#q', "What are 3M's total current assets at the end of FY2018?");
    await page.click('#ask-btn');
    await page.waitForFunction(() => /FY2018: \$[\d,]+ million; FY2017: \$[\d,]+ million/.test(document.getElementById('answer-text').textContent));
    // a follow-up keeps the company and period it does not name, says so, and the thread goes on
    await page.click('#follow-up');
    await page.waitForSelector('#thread:not([hidden])');
    assert.match(await page.textContent('#thread-text'), /Following up “What are 3M's total current assets at the end of FY2018\?”/);
    assert.equal(await page.inputValue('#q'), '');
    await page.fill('#q', 'and total current liabilities?');
    await page.click('#ask-btn');
    await page.waitForFunction(() => document.getElementById('reading').textContent.startsWith('Follow-up of #'));
    assert.match(await page.textContent('#reading'), /asked as “Total current liabilities for 3M in FY2018\?” \(kept company: 3M; period: FY2018\)\. Read as: /);
    assert.match(await page.textContent('#answer-text'), /7,244/);
    assert.match(await page.textContent('#thread-text'), /Following up “Total current liabilities for 3M in FY2018\?”/);
    await page.fill('#q', 'and in FY2017?');
    await page.click('#ask-btn');
    await page.waitForFunction(() => document.getElementById('reading').textContent.includes('“Total current liabilities for 3M in FY2017?”'));
    // "New question" ends the thread: the next question is read on its own
    await page.click('#thread-end');
    assert.ok(await page.isHidden('#thread'));
    // "Not found" says why
    await page.fill('#q', 'Who wrote the novel Pride and Prejudice?');
    await page.click('#ask-btn');
    await page.waitForFunction(() => document.getElementById('answer-text').textContent === 'Not found in the provided pages.' && !document.getElementById('ask-btn').disabled);
    assert.match(await page.textContent('#support'), /^Why: .{10,}\.$/);

    // metadata can be edited in the library (once the table has loaded)
    await page.click('button.tab[data-view=library]');
    await page.waitForSelector('#docs[aria-busy=false]');
    await page.click('button[aria-label="Edit company, year and form of 3M_2018_10K"]');
    await page.fill('input[aria-label="company of 3M_2018_10K"]', 'Minnesota Mining');
    await page.click('#docs tr[data-doc="3M_2018_10K"] button:has-text("Save")');
    await page.waitForFunction(() => document.querySelector('#docs tr[data-doc="3M_2018_10K"] td:nth-child(3)')?.textContent === 'Minnesota Mining');

    // aliases: add one (the filter then knows the document by it), see it, remove it
    await page.fill('input[aria-label="New alias for 3M_2018_10K"]', 'Big Red');
    await page.press('input[aria-label="New alias for 3M_2018_10K"]', 'Enter');
    await page.waitForSelector('button[aria-label="Remove alias big red of 3M_2018_10K"]');
    const found = await page.request.post(origin + '/api/search', { data: { query: 'Big Red capital expenditure 2018' }, headers: { 'x-lens-token': new URL(url).searchParams.get('token') } });
    assert.deepEqual((await found.json()).filter.groups, [['3M_2018_10K']]);
    await page.click('button[aria-label="Remove alias big red of 3M_2018_10K"]');
    await page.waitForFunction(() => !document.querySelector('button[aria-label="Remove alias big red of 3M_2018_10K"]'));
    // dense vectors without a model: the button is disabled and the reason is said in plain
    // words, the missing file one click away under "Details"
    await page.waitForFunction(() => document.getElementById('dense-msg').textContent.includes('Dense search is off'));
    assert.ok(await page.isDisabled('#dense-build'));
    assert.doesNotMatch(await page.$eval('#dense-msg', (e) => e.innerText), /\/tmp\/|config\.json/);
    await page.click('#dense-msg details summary');
    assert.match(await page.$eval('#dense-msg', (e) => e.innerText), /config\.json is missing/);
    // the vision index without its model: the button is disabled and the reason shown
    await page.waitForFunction(() => document.getElementById('vision-msg').textContent.includes('Vision search is off'));
    assert.ok(await page.isDisabled('#vision-build'));
    assert.equal(await page.textContent('#docs tr[data-doc="3M_2018_10K"] td.vision-cell'), '–');

    // removing the document removes its pages from search and the viewer
    await page.click('button[aria-label="Remove 3M_2018_10K"]');
    await page.waitForFunction(() => !document.querySelector('#docs tr[data-doc="3M_2018_10K"]'));
    const gone = await page.request.get(src.startsWith('http') ? src : origin + src);
    assert.equal(gone.status(), 404);

    // settings: a bad OCR language is refused with the package to install; a good change is saved
    await page.click('button.tab[data-view=settings]');
    await page.waitForFunction(() => document.getElementById('s-topk').value !== '');
    // the devices say whether this machine has them; the lists are in a user's words
    await page.waitForFunction(() => document.querySelectorAll('#s-device option').length === 4);
    assert.deepEqual(await page.$$eval('#s-device option', (os) => os.map((o) => [o.value, o.disabled])), [['auto', false], ['cpu', false], ['cuda', true], ['metal', true]]);
    assert.match(await page.textContent('#s-device option[value=cuda]'), /not here/);
    assert.equal(await page.textContent('#s-retriever option[value=bm25]'), 'Keyword search');
    // the models a user can get, each with its size, one click from a fetch
    await page.waitForSelector('#s-fetch-minilm');
    assert.equal(await page.textContent('#s-fetch-minilm'), 'Fetch MiniLM (84 MB)');
    assert.equal(await page.textContent('#s-fetch-qwen'), 'Fetch Qwen (478 MB)');
    await page.fill('#s-ocr', 'eng+xyz');
    await page.click('#settings-form button[type=submit]');
    await page.waitForFunction(() => document.getElementById('settings-msg').textContent.includes('tesseract-ocr-xyz'));
    await page.fill('#s-ocr', 'eng');
    await page.fill('#s-topk', '5');
    await page.click('#settings-form button[type=submit]');
    await page.waitForFunction(() => document.getElementById('settings-msg').textContent.startsWith('Saved'));
    // watched folders: add one, see it listed; a missing folder is refused with a reason
    await page.fill('#watch-path', join(files, 'nope'));
    await page.click('#watch-add');
    // in plain words, the folder by its name (its full path behind "Details")
    await page.waitForFunction(() => document.getElementById('watch-msg').textContent.startsWith('nope is not a folder'));
    // a folder outside the ingest roots (home, removable media, the library, $LENS_INGEST_ROOTS)
    // is refused: watching / would open every file of the machine
    await page.fill('#watch-path', '/etc');
    await page.click('#watch-add');
    await page.waitForFunction(() => document.getElementById('watch-msg').textContent.startsWith('/etc cannot be watched from here'));
    await page.fill('#watch-path', files);
    await page.click('#watch-add');
    await page.waitForFunction(() => document.getElementById('watch-msg').textContent === 'Watching.');
    await page.waitForFunction(() => document.getElementById('watches').textContent.includes('lens-e2e-files-'));
    await page.screenshot({ path: join(out, 'settings.png') });

    // narrow window still usable: the log's rows become cards that keep every field
    await page.setViewportSize({ width: 480, height: 800 });
    await page.click('button.tab[data-view=log]');
    await page.waitForSelector('#log tbody tr');
    assert.ok(await page.isVisible('#log tbody button[aria-label^="Reopen answer"]'), 'the cited page stays visible when narrow');
    await page.screenshot({ path: join(out, 'log-narrow.png') });
    await page.click('button.tab[data-view=ask]');
    assert.ok(await page.isVisible('#ask-btn'));
  } finally {
    await browser.close();
    proc.kill();
  }
});

test('a model answerer: offered once a model is found, streamed, its run shown', { timeout: 120000 }, async () => {
  const library = mkdtempSync(join(tmpdir(), 'lens-e2e-qwen-'));
  execFileSync(lens, ['--library', library, 'ingest', '--ocr', 'off', join(corpus, 'financebench/pdfs/3M_2018_10K.pdf')]);
  // a models folder holding a (tiny, random) Qwen2 GGUF: the same file the parity tests use
  const models = mkdtempSync(join(tmpdir(), 'lens-e2e-qwen-models-'));
  symlinkSync(join(repo, 'crates/lens-llm/tests/fixtures/tiny-qwen2-q8_0.gguf'), join(models, 'tiny-qwen2-q8_0.gguf'));
  const { proc, url } = await serve(library);
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url);
    await page.click('button.tab[data-view=settings]');
    await page.waitForFunction(() => document.getElementById('s-topk').value !== '');
    // no model in the (empty) models folder: qwen is not offered, and the page says why
    assert.deepEqual(await page.$$eval('#s-answerer option', (os) => os.map((o) => o.value)), ['extractive']);
    // the reason in plain words, the service's own words behind "Details"
    const info = await page.$eval('#s-models-info', (e) => e.innerText);
    assert.match(info, /^No language model found\. The qwen answerer is not offered: put a Qwen \.gguf file/);
    assert.doesNotMatch(info, /model_missing|\/tmp\//);
    assert.ok(await page.isVisible('#s-models-info details summary'));
    // point the models folder at one with a model and Save: qwen is offered at once, no reload
    await page.fill('#s-models', models);
    await page.click('#settings-form button[type=submit]');
    await page.waitForFunction(() => document.getElementById('settings-msg').textContent.startsWith('Saved'));
    assert.ok((await page.$$eval('#s-answerer option', (os) => os.map((o) => o.value))).includes('qwen'), 'the answerer list is refreshed by Save');
    assert.match(await page.textContent('#s-models-info'), /tiny-qwen2-q8_0 \(qwen2, 0 MB, models dir\)/);
    await page.selectOption('#s-answerer', 'qwen');
    await page.click('#settings-form button[type=submit]');
    await page.waitForFunction(() => document.getElementById('settings-msg').textContent.startsWith('Saved'));
    // ask: the model reads the pages and its run is shown under the answer
    await page.click('button.tab[data-view=ask]');
    await page.fill('#q', 'What does 3M say about its litigation in 2018?');
    await page.click('#ask-btn');
    await page.waitForFunction(() => document.getElementById('answer-meta').textContent.includes('pages found in'), null, { timeout: 60000 });
    const meta = await page.textContent('#answer-meta');
    assert.match(meta, /written by the model \(tiny-qwen2-q8_0: \d+ prompt tokens at \d+\/s, \d+ written at [\d.]+\/s\) on this computer's processor/);
    assert.ok(await page.isHidden('#stop-btn'), 'Stop is shown only while answering');
    // notes in a user's words: no passage ids or build words in sight, the notes as written
    // one click away under Details
    const shownMeta = await page.$eval('#answer-meta', (e) => { const c = e.cloneNode(true); for (const d of c.querySelectorAll('details')) d.remove(); return c.textContent; });
    assert.doesNotMatch(shownMeta, /\bP\d+\.[SR]\d+\b|GPU support|tokens: the lines/, shownMeta);
    // and no developer's names for the answerer, retriever or processor
    assert.doesNotMatch(shownMeta.replace(/\(tiny-qwen2-q8_0[^)]*\)/, ''), /\b(?:bm25|extractive|qwen|avx\w*|cpu)\b/i, shownMeta);
    assert.ok(await page.isVisible('#answer-meta details summary'), 'the notes as written are behind Details');
    await page.screenshot({ path: join(out, 'ask-qwen.png') });
    // the log records the model's answer
    const log = execFileSync(lens, ['--library', library, 'log', '--json']).toString().trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(log[0].answerer, 'qwen');
    assert.equal(log[0].model.model, 'tiny-qwen2-q8_0');
    // Settings says what the retriever reads and which one the last question ran on
    await page.click('button.tab[data-view=settings]');
    await page.waitForFunction(() => document.getElementById('s-retriever-info').textContent.includes('Last question'));
    assert.match(await page.textContent('#s-retriever-info'), /^Reads now: Keyword (\+ meaning )?search: the pages' words(; no embedding model installed; no vision model installed)?\. Last question \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\) ran on keyword search\.$/);
  } finally {
    await browser.close();
    proc.kill();
  }
});

test('a why answer is its whole sentence, its page readable at the first fit with its lines in view, and at 480 px the answer stays in view', { timeout: 180000 }, async () => {
  const library = mkdtempSync(join(tmpdir(), 'lens-e2e-why-'));
  execFileSync(lens, ['--library', library, 'ingest', '--ocr', 'off', join(corpus, 'financebench/pdfs/GENERALMILLS_2022_10K.pdf')]);
  const { proc, url } = await serve(library);
  const browser = await launch();
  // the shown page: CSS pixels per PDF point, and whether each evidence box lies inside the
  // viewer's visible part (both ways)
  const seen = (page) => page.evaluate(() => {
    const img = document.getElementById('page-img');
    const sc = document.getElementById('viewer-scroll');
    const dpi = Number(new URL(img.src, location.href).searchParams.get('dpi') || 110);
    const pxPerPt = img.clientWidth / (img.naturalWidth * 72 / dpi);
    const v = sc.getBoundingClientRect();
    const r = img.getBoundingClientRect();
    const boxes = JSON.parse(new URL(img.src, location.href).searchParams.get('boxes') || '[]');
    const inView = boxes.map((b) => {
      const [x0, x1] = [r.left + b.l * pxPerPt, r.left + b.r * pxPerPt];
      const [y0, y1] = [r.top + (img.naturalHeight * 72 / dpi - b.t) * pxPerPt, r.top + (img.naturalHeight * 72 / dpi - b.b) * pxPerPt];
      return x0 >= v.left - 1 && x1 <= v.right + 1 && y0 >= v.top - 1 && y1 <= v.bottom + 1;
    });
    // the evidence's type as drawn: its boxes' height in pixels
    const glyph = Math.min(...boxes.map((b) => (b.t - b.b) * pxPerPt));
    const firstStart = boxes.length ? inView.length && (() => { const b = boxes[0]; const x = r.left + b.l * pxPerPt; const y = r.top + (img.naturalHeight * 72 / dpi - b.t) * pxPerPt; return x >= v.left - 1 && x <= v.right && y >= v.top - 1 && y <= v.bottom; })() : false;
    return { pxPerPt, glyph, boxes: boxes.length, inView, firstStart };
  });
  const ask = async (page, q) => {
    await page.fill('#q', q);
    await page.click('#ask-btn');
    await page.waitForFunction(() => document.getElementById('answer-meta').textContent.includes('pages found in'), null, { timeout: 60000 });
    await page.waitForFunction(() => { const i = document.getElementById('page-img'); return i.complete && i.naturalWidth > 0 && i.src.includes('boxes='); });
    await page.waitForTimeout(400);
  };
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url);
    await page.click('button.tab[data-view=ask]');
    await ask(page, "Why did General Mills' net sales increase 5 percent in fiscal 2022?");
    // the sentence read whole across its printed lines, to its full stop, and shown as supported
    assert.equal((await page.textContent('#answer-text')).trim(), 'The 5 percent increase in net sales in fiscal 2022 reflects favorable net price realization and mix, partially offset by a decrease in contributions from volume growth.');
    assert.equal(await page.textContent('#support'), 'Supported by the cited page');
    // the page opens large enough to read its evidence (this filing prints its pages shrunk:
    // 4.6 pt type, 5 px high at the column's width), and every line of the sentence is boxed and
    // in view
    let s = await seen(page);
    assert.ok(s.glyph >= 9.5, 'the evidence drawn ' + s.glyph.toFixed(1) + ' px high: ' + JSON.stringify(s));
    assert.ok(s.boxes >= 2 && s.inView.every(Boolean), JSON.stringify(s));
    await page.screenshot({ path: join(out, 'ask-why.png') });
    // zoomed out by hand, the whole page's width fits the column
    for (let i = 0; i < 3; i++) await page.click('#v-zoom-out');
    await page.waitForFunction(() => { const i = document.getElementById('page-img'); const sc = document.getElementById('viewer-scroll'); return i.complete && Number(new URL(i.src, location.href).searchParams.get('dpi')) <= 110 && i.naturalWidth > 0 && i.clientWidth <= sc.clientWidth; });

    // a narrow window: the answer that arrives stays in view (the page is under it, one click
    // on its citation away), and the page is still readable with its lines in view there
    await page.setViewportSize({ width: 480, height: 800 });
    await ask(page, "Why did General Mills' net sales increase 5 percent in fiscal 2022?");
    const a = await page.locator('#answer-text').boundingBox();
    assert.ok(a && a.y >= 0 && a.y < 800, 'the answer is in view at 480 px: ' + JSON.stringify(a));
    await page.screenshot({ path: join(out, 'ask-why-narrow.png') });
    await page.click('#see-page');
    await page.waitForFunction(() => { const v = document.getElementById('viewer').getBoundingClientRect(); return v.top >= -1 && v.top < 200; });
    await page.waitForTimeout(300);
    s = await seen(page);
    // readable there too, the sentence's start in view (the line is wider than the column)
    assert.ok(s.glyph >= 8.5, 'the evidence drawn ' + s.glyph.toFixed(1) + ' px high at 480 px: ' + JSON.stringify(s));
    assert.ok(s.firstStart, JSON.stringify(s));
  } finally {
    await browser.close();
    proc.kill();
  }
});
