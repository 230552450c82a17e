// The Label view: build gold question sets, keyboard first. A question (typed, promoted from
// the log, or imported) shows its candidate pages (the retriever's top 8, pages already graded,
// pages a log entry read, pages added by id or search); keys 0/1/2 grade the page in focus,
// j/k move, u undoes, s skips, Enter saves, ? shows the keys. Talks to the backend only
// through window.lensApi (transport.js).
(function () {
  const api = window.lensApi;
  const { $, el, errText, plural, show, marked, register } = window.lensUi;
  const QUERY_TYPES = ['numerical', 'boolean', 'extractive', 'compare-contrast', 'multi-hop'];
  const CONTENT_TYPES = ['text', 'table', 'chart'];

  const state = {
    set: localStorage.getItem('lens.labelSet') || '',
    questions: [],
    q: null, // the question view being labelled
    cur: 0, // the candidate in focus
    extra: {}, // pages added by hand, per question id
    undo: [], // [{qid, page, grade}] grades to restore, most recent last
    viewing: null, // {page, doc, no, width, height}
  };
  const annotator = () => $('l-annotator').value.trim();
  const msg = (text, cls) => { $('l-msg').className = cls || 'muted'; $('l-msg').textContent = text; };
  const fail = (e) => msg(errText(e), 'error');
  $('l-annotator').value = localStorage.getItem('lens.annotator') || 'annotator';
  $('l-annotator').addEventListener('change', () => localStorage.setItem('lens.annotator', annotator()));

  // ---- sets
  async function loadSets() {
    const sets = await api.call('label_sets');
    state.known = sets.map((s) => s.name);
    const sel = $('l-set');
    sel.textContent = '';
    for (const s of sets) sel.appendChild(new Option(s.name + ' (' + plural(s.questions, 'question') + ')', s.name));
    if (!state.set || !sets.some((s) => s.name === state.set)) state.set = sets.length ? sets[0].name : (state.set || 'gold');
    if (!sets.some((s) => s.name === state.set)) sel.appendChild(new Option(state.set + ' (new)', state.set));
    sel.value = state.set;
  }
  function useSet(name) {
    state.set = name;
    localStorage.setItem('lens.labelSet', name);
  }
  $('l-set').addEventListener('change', () => { useSet($('l-set').value); state.q = null; $('l-panel').hidden = true; loadQuestions(); });
  $('l-new-set-btn').addEventListener('click', async () => {
    const name = $('l-new-set').value.trim();
    if (!name) { msg('Type a name for the new set first.', 'error'); return; }
    try {
      await api.call('label_create_set', { set: name });
      useSet(name);
      (state.known = state.known || []).push(name);
      $('l-new-set').value = '';
      await load();
      msg('Set "' + name + '" created.');
    } catch (e) { fail(e); }
  });

  async function loadQuestions() {
    const ol = $('l-questions');
    ol.textContent = '';
    // a set not made yet has no questions: nothing to ask the service for
    if (state.known && !state.known.includes(state.set)) state.questions = [];
    else try { state.questions = await api.call('label_questions', { set: state.set }); } catch (e) { state.questions = []; if (e.code !== 'not_found') fail(e); }
    const me = annotator();
    for (const q of state.questions) {
      const li = el('li');
      const mine = q.grades.filter((g) => g.annotator === me).length;
      const answered = q.answers.some((a) => a.annotator === me);
      const b = el('button', 'link', q.query);
      b.addEventListener('click', () => openQuestion(q.qid));
      li.appendChild(b);
      const status = (q.grades.length ? plural(Object.keys(q.gold).length, 'page') + ' graded' : 'not graded') + (q.disagreements.length ? ' · ' + q.disagreements.length + ' ≠' : '');
      li.appendChild(el('span', 'muted', ' ' + status));
      li.dataset.qid = q.qid;
      if (state.q && state.q.qid === q.qid) li.classList.add('current');
      if (answered || mine) li.classList.add('done');
      ol.appendChild(li);
    }
    // a note, not a numbered item
    if (!state.questions.length) ol.appendChild(el('li', 'muted empty-note', 'No questions yet: type one above, promote one from the Log, or import a JSONL file.'));
  }

  // ---- agreement as it stands: every annotator's grades are in the same library (a team
  // server's, or this one), so it is worked out again every few seconds while this view is
  // open, and the question list with it (another annotator's grades and disagreements show)
  async function refreshLive() {
    const live = $('l-live');
    // a set not made yet has no grades: nothing to ask the service for
    if (!state.set || (state.known && !state.known.includes(state.set))) { live.textContent = ''; return; }
    try {
      const a = await api.call('label_agreement', { set: state.set });
      live.textContent = a.pairs.length
        ? 'Agreement now: ' + a.pairs.map((p) => p.a + ' / ' + p.b + ': kappa ' + fmt(p.kappa) + ' on ' + plural(p.pages, 'page') + ' both graded').join('; ') + ' · ' + plural(a.disagreements.length, 'disagreement') + ' to resolve.'
        : 'Agreement: ' + (a.annotators.length ? 'only ' + a.annotators.join(', ') + ' has graded so far' : 'no grades yet') + '.';
    } catch (_) { /* the next tick tries again */ }
  }
  setInterval(() => {
    if ($('view-label').hidden || document.activeElement === $('l-query')) return;
    refreshLive();
    loadQuestions().catch(() => {});
  }, 5000);

  async function load() {
    try {
      // on a team server the annotator is the signed-in user, whatever is typed
      const me = await api.call('app_info');
      if (me.user) { $('l-annotator').value = me.user; $('l-annotator').readOnly = true; }
      await loadSets();
      const info = await api.call('get_settings');
      const r = $('l-retriever');
      if (!r.options.length) for (const x of info.retrievers) r.appendChild(new Option(x, x));
      r.value = 'bm25';
      await loadQuestions();
      refreshLive();
    } catch (e) { fail(e); }
  }

  // ---- one question
  const short = (s) => s.length > 90 ? s.slice(0, 90) + '…' : s;

  async function openQuestion(qid, keepFocus) {
    try {
      const v = await api.call('label_question', { set: state.set, qid, retriever: $('l-retriever').value || null, extra: state.extra[qid] || [] });
      const same = state.q && state.q.qid === qid;
      state.q = v;
      if (!same && !keepFocus) state.cur = 0;
      render(!same);
      for (const li of $('l-questions').children) li.classList.toggle('current', li.dataset.qid === qid);
    } catch (e) { fail(e); }
  }

  // `fresh`: another question than the one shown (its answer and types fill the form; a
  // re-render of the same question leaves what is being typed alone)
  function render(fresh) {
    const v = state.q;
    const me = annotator();
    $('l-panel').hidden = false;
    $('l-title').textContent = v.query;
    const o = v.origin;
    $('l-origin').textContent = o && o.log ? 'From log #' + o.log + ' (' + o.answerer + ' answered "' + o.answer + '"' + (o.feedback === -1 ? ', marked wrong' : o.feedback === 1 ? ', marked right' : '') + (o.note ? ': ' + o.note : '') + ')' : v.qid;
    $('l-notes').textContent = (v.notes || []).join('; ');
    const ol = $('l-cands');
    ol.textContent = '';
    state.cur = Math.min(state.cur, Math.max(0, v.candidates.length - 1));
    v.candidates.forEach((c, i) => {
      const li = el('li', 'cand');
      li.dataset.page = c.page;
      if (i === state.cur) li.classList.add('current');
      const thumb = el('button', 'thumb');
      thumb.setAttribute('aria-label', 'View ' + c.page);
      const img = el('img');
      img.alt = '';
      if (c.in_library) api.pageImage(c.doc_id, c.page_no, [], 36).then((src) => { img.src = src; }).catch(() => {});
      thumb.appendChild(img);
      thumb.addEventListener('click', () => { state.cur = i; view(c); markCurrent(); });
      li.appendChild(thumb);
      const body = el('div', 'cand-body');
      const head = el('div');
      head.appendChild(el('strong', null, c.page));
      if (c.shown) head.appendChild(el('span', 'muted', ' ' + c.shown));
      head.appendChild(el('span', 'muted', ' ' + (c.rank ? '#' + c.rank + ' ' : '') + c.from.join(', ') + (c.heading ? ' · ' + short(c.heading) : '') + (c.in_library ? '' : ' · not in the library')));
      body.appendChild(head);
      const sn = el('p', 'snippet');
      sn.appendChild(marked(c.snippet || '', v.terms));
      body.appendChild(sn);
      const grades = el('div', 'grades');
      const mine = c.grades[me];
      for (const g of [2, 1, 0]) {
        const b = el('button', 'grade' + (mine === g ? ' chosen' : ''), String(g));
        b.setAttribute('aria-pressed', String(mine === g));
        b.setAttribute('aria-label', 'Grade ' + g + ' for ' + c.page);
        b.addEventListener('click', () => { state.cur = i; grade(g); });
        grades.appendChild(b);
      }
      const others = Object.entries(c.grades).filter(([a]) => a !== me);
      if (others.length) {
        const split = new Set(Object.values(c.grades)).size > 1;
        grades.appendChild(el('span', split ? 'error' : 'muted', ' ' + others.map(([a, g]) => a + ': ' + g).join(', ') + (split ? ' (disagree)' : '')));
      }
      body.appendChild(grades);
      li.appendChild(body);
      ol.appendChild(li);
    });
    if (!v.candidates.length) ol.appendChild(el('li', 'muted', 'No candidate pages: add documents to the library, or add a page by id below.'));
    $('l-search-results').textContent = '';
    if (!fresh) return;
    $('l-viewer').hidden = true;
    state.viewing = null;
    const mineAns = v.answers.find((a) => a.annotator === me);
    $('l-answer').value = mineAns ? mineAns.answer : v.answer;
    $('l-unanswerable').checked = mineAns ? !mineAns.answerable : !v.answerable;
    for (const [id, list, have] of [['l-qtypes', QUERY_TYPES, v.query_types], ['l-ctypes', CONTENT_TYPES, v.content_type]]) {
      const fs = $(id);
      for (const x of [...fs.querySelectorAll('label')]) x.remove();
      // the offered types, then any others the question already has (kept)
      for (const t of [...list, ...have.filter((h) => !list.includes(h))]) {
        const lab = el('label', 'inline');
        const cb = el('input');
        cb.type = 'checkbox';
        cb.value = t;
        cb.checked = have.includes(t);
        lab.appendChild(cb);
        lab.appendChild(document.createTextNode(' ' + t));
        fs.appendChild(lab);
      }
    }
  }

  function markCurrent() {
    for (const [i, li] of [...$('l-cands').children].entries()) li.classList.toggle('current', i === state.cur);
    const li = $('l-cands').children[state.cur];
    if (li && li.scrollIntoView) li.scrollIntoView({ block: 'nearest' });
  }

  async function grade(g, noUndo) {
    const v = state.q;
    if (!v || !v.candidates.length) return;
    if (!annotator()) { msg('Type your name as annotator first.', 'error'); $('l-annotator').focus(); return; }
    const c = v.candidates[state.cur];
    const before = c.grades[annotator()];
    try {
      await api.call('label_grade', { set: state.set, qid: v.qid, page: c.page, grade: g, annotator: annotator() });
      if (!noUndo) state.undo.push({ qid: v.qid, page: c.page, grade: before === undefined ? null : before, cur: state.cur });
      if (g !== null && !noUndo) state.cur = Math.min(state.cur + 1, v.candidates.length - 1);
      await openQuestion(v.qid, true);
      refreshLive();
      msg(g === null ? 'Grade on ' + c.page + ' cleared.' : c.page + ' graded ' + g + '.');
    } catch (e) { fail(e); }
  }

  async function undo() {
    const last = state.undo.pop();
    if (!last) { msg('Nothing to undo.'); return; }
    if (!state.q || state.q.qid !== last.qid) await openQuestion(last.qid);
    state.cur = last.cur;
    try {
      await api.call('label_grade', { set: state.set, qid: last.qid, page: last.page, grade: last.grade, annotator: annotator() });
      await openQuestion(last.qid, true);
      msg('Undone: ' + last.page + (last.grade === null ? ' ungraded.' : ' back to ' + last.grade + '.'));
    } catch (e) { fail(e); }
  }

  function checked(id) { return [...$(id).querySelectorAll('input:checked')].map((x) => x.value); }

  async function save() {
    const v = state.q;
    if (!v) return;
    if (!annotator()) { msg('Type your name as annotator first.', 'error'); $('l-annotator').focus(); return; }
    try {
      await api.call('label_save', { set: state.set, qid: v.qid, annotator: annotator(), answer: $('l-answer').value, answerable: !$('l-unanswerable').checked, query_types: checked('l-qtypes'), content_type: checked('l-ctypes') });
      msg('Saved ' + v.qid + '.', 'done');
      await loadQuestions();
      next();
    } catch (e) { fail(e); }
  }

  function next() {
    const i = state.questions.findIndex((q) => state.q && q.qid === state.q.qid);
    const n = state.questions[i + 1];
    if (n) openQuestion(n.qid);
    else msg('That was the last question of the set.', 'done');
  }

  // ---- the page viewer, with evidence boxes drawn by dragging
  async function view(c) {
    if (!c.in_library) { msg(c.page + ' is not in the library.', 'error'); return; }
    state.viewing = c;
    $('l-viewer').hidden = false;
    $('l-viewer-title').textContent = c.page + (c.shown ? ' (' + c.shown + ')' : '') + (c.heading ? ' · ' + short(c.heading) : '');
    const mine = state.q.boxes.filter((b) => b.page === c.page);
    try { $('l-page-img').src = await api.pageImage(c.doc_id, c.page_no, mine, 110); } catch (e) { fail(e); }
  }
  let drag = null;
  const wrap = $('l-page-wrap');
  wrap.addEventListener('mousedown', (ev) => {
    if (!state.viewing || ev.button !== 0) return;
    ev.preventDefault();
    const r = $('l-page-img').getBoundingClientRect();
    drag = { x0: ev.clientX - r.left, y0: ev.clientY - r.top, r };
  });
  window.addEventListener('mousemove', (ev) => {
    if (!drag) return;
    const x = ev.clientX - drag.r.left, y = ev.clientY - drag.r.top;
    const d = $('l-drag');
    d.hidden = false;
    Object.assign(d.style, { left: Math.min(x, drag.x0) + 'px', top: Math.min(y, drag.y0) + 'px', width: Math.abs(x - drag.x0) + 'px', height: Math.abs(y - drag.y0) + 'px' });
  });
  window.addEventListener('mouseup', async (ev) => {
    if (!drag) return;
    const d = drag;
    drag = null;
    $('l-drag').hidden = true;
    const c = state.viewing;
    const x1 = ev.clientX - d.r.left, y1 = ev.clientY - d.r.top;
    if (Math.abs(x1 - d.x0) < 4 || Math.abs(y1 - d.y0) < 4 || !c.width) return;
    // displayed pixels to PDF points (origin bottom left)
    const s = d.r.width / c.width;
    const box = { page: c.page, l: Math.min(d.x0, x1) / s, r: Math.max(d.x0, x1) / s, t: c.height - Math.min(d.y0, y1) / s, b: c.height - Math.max(d.y0, y1) / s };
    try {
      await api.call('label_add_box', Object.assign({ set: state.set, qid: state.q.qid, annotator: annotator() }, box));
      msg('Evidence box saved on ' + c.page + '.');
      await openQuestion(state.q.qid, true);
      view(state.q.candidates.find((x) => x.page === c.page) || c);
    } catch (e) { fail(e); }
  });
  $('l-box-clear').addEventListener('click', async () => {
    const c = state.viewing;
    if (!c || !state.q) return;
    try {
      for (const b of state.q.boxes.filter((x) => x.page === c.page && x.annotator === annotator())) await api.call('label_remove_box', { set: state.set, qid: state.q.qid, id: b.id });
      await openQuestion(state.q.qid, true);
      view(c);
    } catch (e) { fail(e); }
  });

  // ---- adding questions and pages
  $('l-add-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const q = $('l-query').value.trim();
    if (!q) { msg('Type a question first.', 'error'); return; }
    try {
      const r = await api.call('label_add', { set: state.set, query: q });
      $('l-query').value = '';
      $('l-query').blur();
      await loadSets();
      await loadQuestions();
      await openQuestion(r.qid);
      msg('Added ' + r.qid + ': grade its pages with 0, 1, 2.');
    } catch (e) { fail(e); }
  });
  async function addPage(page) {
    if (!state.q) return;
    const list = state.extra[state.q.qid] || (state.extra[state.q.qid] = []);
    list.push(page);
    try { await openQuestion(state.q.qid, true); state.cur = state.q.candidates.findIndex((c) => c.page === page); markCurrent(); } catch (e) { list.pop(); fail(e); }
  }
  $('l-add-page').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const p = $('l-page').value.trim();
    if (p) { $('l-page').value = ''; addPage(p); }
  });
  async function searchPages() {
    const q = $('l-search').value.trim();
    const ol = $('l-search-results');
    ol.textContent = '';
    if (!q) return;
    try {
      const r = await api.call('search', { query: q, k: 8, retriever: $('l-retriever').value || null });
      for (const h of r.hits) {
        const li = el('li');
        const page = h.doc_id + '#' + h.page;
        const b = el('button', 'secondary', 'Add ' + page);
        b.addEventListener('click', () => { li.remove(); addPage(page); });
        li.appendChild(b);
        const sn = el('span', 'snippet');
        sn.appendChild(marked(' ' + h.snippet, r.terms));
        li.appendChild(sn);
        ol.appendChild(li);
      }
      if (!r.hits.length) ol.appendChild(el('li', 'muted', 'No pages found.'));
    } catch (e) { fail(e); }
  }
  $('l-search-btn').addEventListener('click', searchPages);
  $('l-search').addEventListener('keydown', (ev) => { if (ev.key === 'Enter') { ev.preventDefault(); searchPages(); } });
  $('l-save').addEventListener('click', save);
  $('l-skip').addEventListener('click', next);

  // ---- import, export, agreement, score
  async function importText(name, text) {
    try {
      const set = state.set || name.replace(/\.(labels\.)?jsonl?$/, '');
      const r = await api.call('label_import', { set, text, annotator: null });
      useSet(r.set);
      await load();
      msg('Imported into "' + r.set + '": ' + plural(r.added, 'question') + ' added, ' + r.updated + ' updated.' + (r.missing.length ? ' ' + plural(r.missing.length, 'gold page') + ' not in the library: ' + r.missing.slice(0, 5).join(', ') + (r.missing.length > 5 ? '…' : '') : ''), r.missing.length ? 'error' : 'done');
    } catch (e) { fail(e); }
  }
  $('l-import').addEventListener('change', async () => {
    const f = $('l-import').files[0];
    $('l-import').value = '';
    if (f) importText(f.name, await f.text());
  });
  // in the app the native open dialog reads the file (Ctrl+I, or the button)
  async function chooseImport() {
    try {
      const f = await api.openText('Import labels', ['jsonl', 'json']);
      if (f) importText(f.name, f.text);
    } catch (e) { fail(e); }
  }
  $('l-import-btn').addEventListener('click', (ev) => { if (api.kind === 'tauri') { ev.preventDefault(); chooseImport(); } });
  document.addEventListener('keydown', (ev) => {
    if ($('view-label').hidden || !(ev.ctrlKey || ev.metaKey) || ev.altKey || ev.key.toLowerCase() !== 'i') return;
    ev.preventDefault();
    if (api.kind === 'tauri') chooseImport(); else $('l-import').click();
  });
  $('l-export').addEventListener('click', async () => {
    try {
      const r = await api.call('label_export', { set: state.set });
      const saved = await api.saveText(r.file_name, r.jsonl, 'application/x-ndjson');
      if (!saved) return; // the save dialog was closed
      msg('Exported ' + plural(r.questions, 'question') + ' to ' + saved + '.', 'done');
    } catch (e) { fail(e); }
  });
  const fmt = (x) => (x === null || x === undefined) ? 'n/a' : x.toFixed(3);
  function openButton(qid, text) {
    const b = el('button', 'link', text || qid);
    b.addEventListener('click', () => openQuestion(qid));
    return b;
  }
  function table(head, rows) {
    const t = el('table');
    const tr = el('tr');
    for (const h of head) tr.appendChild(el('th', null, h));
    t.appendChild(el('thead')).appendChild(tr);
    const tb = el('tbody');
    for (const r of rows) {
      const row = el('tr');
      for (const c of r) { const td = el('td'); if (c instanceof Node) td.appendChild(c); else td.textContent = String(c); row.appendChild(td); }
      tb.appendChild(row);
    }
    t.appendChild(tb);
    return t;
  }
  $('l-agree').addEventListener('click', async () => {
    const box = $('l-report');
    try {
      const a = await api.call('label_agreement', { set: state.set });
      box.textContent = '';
      box.hidden = false;
      box.appendChild(el('h3', null, 'Agreement in "' + a.set + '"'));
      if (!a.pairs.length) box.appendChild(el('p', 'muted', 'One annotator only (' + (a.annotators.join(', ') || 'none') + '): agreement needs two grading the same questions.'));
      else box.appendChild(table(['Annotators', 'Pages both graded', 'Same grade', 'Kappa', 'Weighted kappa', 'Answered by both', 'Answers agree'], a.pairs.map((p) => [p.a + ' / ' + p.b, p.pages, fmt(p.observed), fmt(p.kappa), fmt(p.weighted_kappa), p.answered, fmt(p.answers_agree)])));
      box.appendChild(el('p', null, plural(a.disagreements.length, 'disagreement') + ' to resolve (open the question and grade again):'));
      box.appendChild(table(['Question', 'Page', 'Grades / answers'], a.disagreements.map((d) => [openButton(d.qid, d.query), d.page || 'answer', Object.entries(d.page ? d.grades : d.answers).map(([k, v]) => k + ': ' + v).join(' · ')])));
    } catch (e) { fail(e); }
  });
  $('l-score').addEventListener('click', async () => {
    const box = $('l-report');
    msg('Scoring "' + state.set + '"…');
    try {
      const s = await api.call('label_score', { set: state.set, retriever: $('l-retriever').value || null });
      box.textContent = '';
      box.hidden = false;
      box.appendChild(el('h3', null, 'Retrieval on "' + s.set + '" (' + s.mode + ' mode, ' + $('l-retriever').value + ')'));
      const groups = Object.entries(s.by_query_type).filter(() => Object.keys(s.by_query_type).length > 1).map(([k, g]) => ['type: ' + k, g.n, fmt(g.ndcg5), fmt(g.recall5), fmt(g.hit3), fmt(g.mrr)]);
      const t = table(['', 'n', 'nDCG@5', 'Recall@5', 'Hit@3', 'MRR'], [['all', s.n, fmt(s.ndcg5), fmt(s.recall5), fmt(s.hit3), fmt(s.mrr)], ...groups]);
      t.id = 'l-score-table';
      box.appendChild(t);
      if (s.skipped_no_gold) box.appendChild(el('p', 'muted', plural(s.skipped_no_gold, 'question') + ' without a gold page not scored.'));
      box.appendChild(el('p', null, s.misses.length + (s.misses.length === 1 ? ' miss' : ' misses') + ' (no gold page in the top 3):'));
      if (s.misses.length) box.appendChild(table(['Question', 'Top pages', 'Gold'], s.misses.map((m) => [openButton(m.qid, m.query), m.top.join(', '), m.gold.join(', ')])));
      msg('Scored ' + plural(s.n, 'question') + '.', 'done');
    } catch (e) { fail(e); }
  });
  $('l-help-btn').addEventListener('click', () => toggleHelp());
  function toggleHelp() {
    const h = $('l-help');
    h.hidden = !h.hidden;
    $('l-help-btn').setAttribute('aria-expanded', String(!h.hidden));
  }

  // ---- keys (not while typing; Esc leaves a field, Ctrl+Enter saves from the answer)
  document.addEventListener('keydown', (ev) => {
    if ($('view-label').hidden || ev.altKey || ev.metaKey) return;
    const typing = ev.target.closest && ev.target.closest('input, textarea, select');
    if (typing) {
      if (ev.key === 'Escape') { ev.target.blur(); ev.preventDefault(); }
      else if (ev.key === 'Enter' && ev.ctrlKey && ev.target.id === 'l-answer') { ev.preventDefault(); ev.target.blur(); save(); }
      return;
    }
    if (ev.ctrlKey) return;
    const v = state.q;
    const k = ev.key;
    let done = true;
    if (k === '?') toggleHelp();
    else if (k === '/') $('l-query').focus();
    else if (!v) done = false;
    else if (k === '0' || k === '1' || k === '2') grade(Number(k));
    else if (k === 'j') { state.cur = Math.min(state.cur + 1, v.candidates.length - 1); markCurrent(); }
    else if (k === 'k') { state.cur = Math.max(state.cur - 1, 0); markCurrent(); }
    else if (k === 'u') undo();
    else if (k === 's') next();
    else if (k === 'a') $('l-answer').focus();
    else if (k === 'n') $('l-unanswerable').checked = !$('l-unanswerable').checked;
    else if (k === 'v') { const c = v.candidates[state.cur]; if (c) view(c); }
    else if (k === 'Enter' && !(ev.target.closest && ev.target.closest('button'))) save();
    else done = false;
    if (done) ev.preventDefault();
  });

  // a log entry becomes a question of the current set
  async function fromLog(id) {
    try {
      show('label');
      await loadSets();
      const q = await api.call('label_from_log', { set: state.set, log_id: id });
      await load();
      await openQuestion(q.qid);
      msg('Log #' + id + ' added to "' + state.set + '" with the pages it read.');
    } catch (e) {
      // promoted before: open it
      if (e.code === 'bad_input' && /already has a question/.test(e.message)) { await loadQuestions(); openQuestion('log-' + id); }
      else fail(e);
    }
  }

  register('label', { load });
  // the Log's Label button
  window.lensLabeler = { load, fromLog };
})();
