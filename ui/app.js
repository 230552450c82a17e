(function () {
  const api = window.lensApi;
  const $ = (id) => document.getElementById(id);
  // '1 document', '2 documents'
  const plural = (n, word) => n + ' ' + word + (n === 1 ? '' : 's');
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  // What went wrong in the UI's words: a sentence per error code (what happened, what to do);
  // the service's own message, with folders cut to file names, where it is already in plain words.
  const PLAIN = {
    pdf_encrypted: 'The PDF is password-protected: save a copy without the password and add that.',
    pdf_corrupt: 'The file is damaged or not a complete PDF.',
    not_pdf: 'The file is not a PDF.',
    pdf_empty: 'The file is empty.',
    pdf_no_pages: 'The PDF has no pages.',
    pdf_too_large: 'The file is larger than the size limit.',
    pdfium_missing: 'The PDF reader that comes with the app could not be loaded: reinstall the app.',
    unknown_document: 'That document is not in the library (it may have been removed).',
    unknown_page: 'That page is not in the document.',
    model_missing: 'The model for this is not installed: put it in the models folder (Settings), or choose the extractive answerer.',
    cancelled: 'Stopped.',
    library_version: 'This library was made by a newer version of the app: update the app to open it.',
    io: 'A file could not be read or written.',
    db: 'The library could not be read or written.',
    database: 'The team database could not be reached: nothing was lost; try again when it is back.',
    index: 'The search index could not be read or written.',
    image: 'The page image could not be made.',
    model: 'The model could not run on this machine.',
  };
  // folders cut to their last name ("/home/a/models/minilm/config.json" -> "config.json")
  const cleaned = (m) => String(m || '').replace(/`/g, '').replace(/(?:~|\.{1,2})?(?:\/[^\s/:,;'"()]+){2,}\/?/g, (p) => p.replace(/\/$/, '').split('/').pop());
  // a sentence: capitalised, unless it starts with a file or folder's name ("nope is not a folder")
  const sentence = (m) => {
    const t = cleaned(m).trim();
    if (!t) return '';
    const named = /^[/~.]/.test(String(m).trim()) || /^\S*[._\d]/.test(t);
    return (named ? t : t[0].toUpperCase() + t.slice(1)) + (/[.!?)]$/.test(t) ? '' : '.');
  };
  const errText = (e) => PLAIN[e && e.code] || sentence(e && e.message) || 'Something went wrong.';
  // the service's own words, one click away
  function withDetails(node, text) {
    const d = el('details', 'err-details');
    d.appendChild(el('summary', null, 'Details'));
    d.appendChild(el('code', null, text));
    node.appendChild(document.createTextNode(' '));
    node.appendChild(d);
  }
  // an error in a message line: the plain sentence, and the service's details one click away
  function showErr(node, e, prefix) {
    node.textContent = (prefix || '') + errText(e);
    if (e && (e.code || e.message)) withDetails(node, (e.code ? e.code + ': ' : '') + (e.message || ''));
  }
  // `text` with the words starting with any of `terms` marked
  function marked(text, terms) {
    const frag = document.createDocumentFragment();
    const words = (terms || []).filter((t) => t.length > 1).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    if (!words.length) { frag.appendChild(document.createTextNode(text)); return frag; }
    const re = new RegExp('\\b(' + words.join('|') + ')\\w*', 'gi');
    let last = 0;
    for (const m of text.matchAll(re)) {
      frag.appendChild(document.createTextNode(text.slice(last, m.index)));
      frag.appendChild(el('mark', null, m[0]));
      last = m.index + m[0].length;
    }
    frag.appendChild(document.createTextNode(text.slice(last)));
    return frag;
  }
  // an id ("AMCOR_2022_8K_dated-2022-07-01#4") that may wrap only after its underscores and
  // before its '#', never inside a word (<wbr> marks are not copied with the text)
  function idNode(text) {
    const frag = document.createDocumentFragment();
    const parts = String(text).split(/(?<=_)|(?=#)/);
    // each part whole (a date in an id never breaks at its hyphens), a <wbr> between parts
    parts.forEach((p, i) => { if (i) frag.appendChild(document.createElement('wbr')); frag.appendChild(el('span', 'nowrap', p)); });
    return frag;
  }
  // `tag` showing an id that wraps only at its joints ([idNode])
  function idEl(tag, cls, text) { const e = el(tag, cls); e.appendChild(idNode(text)); return e; }
  // a figure as printed in a statement: "2912853" -> "2,912,853", "-1577" -> "-1,577"
  function figure(v) {
    const m = /^(-?)(\d+)(\.\d+)?$/.exec(String(v).trim());
    return m ? m[1] + m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (m[3] || '') : String(v);
  }
  // the question's words worth marking in a snippet

  // every table cell carries its column's name, shown beside the value when rows become cards:
  // the rows added to a table's body are labelled from its head as they arrive
  function labelRow(tr) {
    const table = tr.closest('table');
    if (!table || !tr.closest('tbody')) return;
    const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
    [...tr.children].forEach((td, i) => { if (td.tagName === 'TD' && !td.dataset.label) td.dataset.label = heads[i] || ''; });
  }
  new MutationObserver((records) => {
    for (const rec of records) {
      for (const n of rec.addedNodes) {
        if (n.nodeType !== 1) continue;
        if (n.tagName === 'TR') labelRow(n);
        else if (n.tagName === 'TD') labelRow(n.parentElement);
        else for (const tr of n.querySelectorAll('tr')) labelRow(tr);
      }
    }
  }).observe(document.body, { childList: true, subtree: true });

  // ---- views
  // index.html lists each view once: its tab, its section and its script; a view's script
  // registers what showing it does (`register(name, { load })`)
  const views = {};
  function register(name, view) {
    if (!document.querySelector('.tab[data-view="' + name + '"]')) throw new Error('no tab for the view ' + name);
    views[name] = view;
  }
  function show(view) {
    for (const b of document.querySelectorAll('.tab')) b.setAttribute('aria-pressed', String(b.dataset.view === view));
    for (const b of document.querySelectorAll('.tab')) $('view-' + b.dataset.view).hidden = b.dataset.view !== view;
    if (views[view] && views[view].load) views[view].load();
  }
  function showTab(view) { show(view); if (view === 'ask') $('q').focus(); }
  for (const b of document.querySelectorAll('.tab')) b.addEventListener('click', () => showTab(b.dataset.view));
  // Alt+1..5 switch views, in the tabs' order
  document.addEventListener('keydown', (ev) => {
    if (!ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const tabs = [...document.querySelectorAll('.tab')];
    const i = Number(ev.key) - 1;
    if (Number.isInteger(i) && i >= 0 && i < tabs.length) { ev.preventDefault(); showTab(tabs[i].dataset.view); }
  });

  // ---- library
  // an empty library: the Ask view says to add filings first
  function emptyHint(n) { $('empty-hint').hidden = n > 0 || ingesting > 0; }
  $('empty-add').addEventListener('click', () => { showTab('library'); if (api.kind === 'tauri') chooseFiles(); else $('file-input').click(); });
  let docsGen = 0; // loads overlap (progress polling, view switches): only the newest renders
  async function loadDocs() {
    const gen = ++docsGen;
    const tbody = $('docs').querySelector('tbody');
    $('docs').setAttribute('aria-busy', 'true');
    try {
      const docs = await api.call('documents');
      const aliases = await api.call('aliases').catch(() => ({}));
      const dense = await api.call('dense_status').catch(() => null);
      const vision = await api.call('vision_status').catch(() => null);
      if (gen !== docsGen) return;
      $('docs').setAttribute('aria-busy', 'false');
      renderVision(vision);
      // a row being edited is not redrawn under the user's hands: the save reloads
      if (tbody.querySelector('tr.editing')) return;
      const visionOf = new Map(((vision && vision.coverage) || []).map((c) => [c.doc, c]));
      tbody.textContent = '';
      fillScope(docs);
      renderDense(dense);
      // a build started by the service (after an ingest) is followed as one started here
      if (dense && dense.job && dense.job.running) followDense();
      const withVectors = new Set((dense && dense.with_vectors) || []);
      $('lib-msg').textContent = docs.length
        ? plural(docs.length, 'document')
        : ingesting ? 'No documents yet: ' + plural(ingesting, 'file') + ' being added (below).' : 'No documents yet: add PDFs.';
      emptyHint(docs.length);
      for (const d of docs) {
        const tr = el('tr');
        tr.dataset.doc = d.id;
        const name = el('td');
        name.appendChild(wholeWords(docName(d)));
        name.appendChild(idEl('div', 'muted small', d.id));
        tr.appendChild(name);
        tr.appendChild(el('td', null, String(d.pages)));
        tr.appendChild(el('td', null, d.display_name || d.company || ''));
        // a period or form is one unit: never broken at its hyphens ("2022-07-01", "10-K")
        for (const v of [d.period || d.year || '', d.form || '']) tr.appendChild(el('td', 'nowrap', String(v)));
        tr.appendChild(el('td', null, String(d.needs_ocr_pages)));
        tr.appendChild(aliasCell(d, aliases[d.id] || []));
        tr.appendChild(el('td', 'dense-cell', withVectors.has(d.id) ? 'yes' : '–'));
        // vision coverage: the published index, or pages embedded so far
        const vc = visionOf.get(d.id);
        tr.appendChild(el('td', 'vision-cell', !vc ? '–' : vc.published ? vc.vision_pages + ' pages (' + vc.edge + ' px)' : vc.vision_pages ? vc.vision_pages + ' of ' + vc.pages + ' pages' : '–'));
        const td = el('td', 'actions');
        const edit = el('button', 'secondary', 'Edit');
        edit.setAttribute('aria-label', 'Edit company, year and form of ' + d.id);
        edit.addEventListener('click', () => editRow(tr, d));
        td.appendChild(edit);
        const rm = el('button', 'secondary', 'Remove');
        rm.setAttribute('aria-label', 'Remove ' + d.id);
        rm.addEventListener('click', async () => {
          try { await api.call('remove', { doc: d.id }); loadDocs(); } catch (e) { showErr($('lib-msg'), e); }
        });
        td.appendChild(rm);
        tr.appendChild(td);
        tbody.appendChild(tr);
      }
    } catch (e) { showErr($('lib-msg'), e, 'Could not read the library: '); }
  }

  // "American Express Company FY2022 10-K": the name the service gives a document (DocView.name)
  function docName(d) { return d.name || d.title || d.id; }
  // text whose hyphenated words ("10-K", "2022-07-01") are kept whole when it wraps
  function wholeWords(text) {
    const frag = document.createDocumentFragment();
    String(text).split(/(\s+)/).forEach((w) => frag.appendChild(/\S-\S/.test(w) ? el('span', 'nowrap', w) : document.createTextNode(w)));
    return frag;
  }

  // aliases: the names the document filter knows a document by; user ones can be removed
  function aliasCell(d, list) {
    const td = el('td', 'aliases');
    for (const a of list) {
      const chip = el('span', 'chip' + (a.source === 'user' ? ' user' : ''), a.alias);
      chip.title = a.source === 'user' ? 'added by you' : a.source === 'list' ? "from the app's list of companies" : 'from the file name or cover page';
      if (a.source === 'user') {
        const x = el('button', 'chip-x', '×');
        x.setAttribute('aria-label', 'Remove alias ' + a.alias + ' of ' + d.id);
        x.addEventListener('click', async () => {
          try { await api.call('remove_alias', { doc: d.id, alias: a.alias }); loadDocs(); } catch (e) { showErr($('lib-msg'), e); }
        });
        chip.appendChild(x);
      }
      td.appendChild(chip);
    }
    const form = el('form', 'alias-add');
    const inp = el('input');
    inp.size = 8;
    inp.placeholder = 'add alias';
    inp.setAttribute('aria-label', 'New alias for ' + d.id);
    form.appendChild(inp);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      if (!inp.value.trim()) return;
      try { await api.call('add_alias', { doc: d.id, alias: inp.value }); loadDocs(); } catch (e) { showErr($('lib-msg'), e); }
    });
    td.appendChild(form);
    return td;
  }

  // A background job's status, polled every `ms` until it stops running; one poll at a time.
  function poller(cmd, render, msgId, ms) {
    let busy = false;
    return async function () {
      if (busy) return;
      busy = true;
      try {
        for (;;) {
          const st = await api.call(cmd);
          render(st);
          if (!st.job || !st.job.running) break;
          await new Promise((r) => setTimeout(r, ms));
        }
      } catch (e) { $(msgId).textContent = errText(e); }
      busy = false;
    };
  }

  // ---- vision index: a background build (seconds per page on a CPU) the UI polls
  function renderVision(st) {
    if (!st) { $('vision-msg').textContent = ''; return; }
    const j = st.job || {};
    const done = (st.coverage || []).filter((c) => c.published).length;
    let t;
    if (!st.installed) t = 'Vision search is off: no vision model (ColModernVBERT) is in the models folder (Settings).';
    else t = st.model + ' at ' + st.edge + ' px: ' + done + ' of ' + plural((st.coverage || []).length, 'document') + ' indexed';
    const p = j.progress || {};
    if (j.running) t += ' — embedding ' + (p.doc_id ? p.doc_id + ' page ' + p.doc_pages_done + '/' + p.doc_pages + ' ' : '') + (p.docs_total ? '(' + p.docs_done + ' of ' + p.docs_total + ' documents' : '(starting') + (p.pages ? ', ' + (p.seconds / p.pages).toFixed(1) + ' s/page' : '') + ')…';
    else if (j.cancelled) t += ' (stopped; the next build goes on where it stopped)';
    if (j.error) t += ' — ' + errText(j.error);
    $('vision-msg').textContent = t;
    if (!st.installed && st.missing) withDetails($('vision-msg'), st.missing);
    $('vision-cancel').hidden = !j.running;
    // a build needs the model: the button says why it cannot run
    $('vision-build').disabled = !!j.running || !st.installed;
    $('vision-build').title = st.installed ? 'Embed page images for vision search (scans first)' : 'Install a ColModernVBERT model first (see docs/models.md)';
  }
  const pollVision = poller('vision_status', renderVision, 'vision-msg', 1500);
  $('vision-build').addEventListener('click', async () => {
    try { await api.call('vision_build', {}); pollVision().then(loadDocs); } catch (e) { showErr($('vision-msg'), e); }
  });
  $('vision-cancel').addEventListener('click', () => api.call('cancel_vision').catch(() => {}));

  // ---- dense vectors: a background build the UI polls
  function renderDense(st) {
    if (!st) { $('dense-msg').textContent = ''; return; }
    const j = st.job || {};
    const n = (st.with_vectors || []).length;
    let t = st.model + ': ' + n + ' of ' + plural(st.documents, 'document') + (n === 1 ? ' has' : ' have') + ' dense vectors';
    if (j.running) t += ' — embedding ' + (j.current ? 'after ' + j.current + ' ' : '') + (j.docs_total ? '(' + j.docs_done + ' of ' + j.docs_total + ' documents, ' + j.pages + ' pages)…' : '(starting)…');
    else if (j.cancelled) t += ' (stopped)';
    if (j.error) t += ' — ' + errText(j.error);
    $('dense-msg').textContent = t;
    $('dense-cancel').hidden = !j.running;
    // a build needs the embedding model: the button says why it cannot run
    if (!st.installed) {
      $('dense-msg').textContent = 'Dense search is off: the embedding model (' + st.model + ') is not in the models folder (Settings).';
      if (st.missing) withDetails($('dense-msg'), st.missing);
    }
    $('dense-build').disabled = !!j.running || !st.installed;
    $('dense-build').title = st.installed ? 'Embed pages for dense and hybrid search' : 'Install the embedding model first (see docs/models.md)';
  }
  const pollDense = poller('dense_status', renderDense, 'dense-msg', 1000);
  // polls until the build ends, then lists the documents again (their Dense column); a call
  // while it follows does nothing (the list it reloads would call it again at once)
  let followingDense = false;
  function followDense() {
    if (followingDense) return;
    followingDense = true;
    pollDense().then(() => { followingDense = false; loadDocs(); });
  }
  $('dense-build').addEventListener('click', async () => {
    try { await api.call('dense_build'); followDense(); } catch (e) { showErr($('dense-msg'), e); }
  });
  $('dense-cancel').addEventListener('click', () => api.call('cancel_dense').catch(() => {}));

  function editRow(tr, d) {
    tr.classList.add('editing');
    const cells = tr.querySelectorAll('td');
    const fields = [['company', 2], ['year', 3], ['form', 4]];
    const inputs = {};
    for (const [name, i] of fields) {
      const inp = el('input');
      inp.value = d[name] == null ? '' : String(d[name]);
      inp.setAttribute('aria-label', name + ' of ' + d.id);
      inp.size = name === 'year' ? 5 : 14;
      cells[i].textContent = '';
      cells[i].appendChild(inp);
      inputs[name] = inp;
    }
    const actions = cells[cells.length - 1];
    actions.textContent = '';
    const save = el('button', null, 'Save');
    save.addEventListener('click', async () => {
      try {
        await api.call('set_metadata', { doc: d.id, company: inputs.company.value, year: inputs.year.value, form: inputs.form.value });
        tr.classList.remove('editing');
        loadDocs();
      } catch (e) { showErr($('lib-msg'), e); }
    });
    actions.appendChild(save);
    const cancel = el('button', 'secondary', 'Cancel');
    cancel.addEventListener('click', () => { tr.classList.remove('editing'); loadDocs(); });
    actions.appendChild(cancel);
    inputs.company.focus();
  }

  // ---- ingest with progress (a background job the UI polls)
  let rejected = [];
  let polling = false;
  function statusText(f) {
    switch (f.status) {
      case 'queued': return 'waiting';
      case 'reading': return 'reading…';
      case 'ocr': return plural(f.pages, 'page') + ', OCR ' + f.ocr_done + '/' + plural(f.ocr_total, 'page') + '…';
      case 'stored': case 'done': return plural(f.pages, 'page') + (f.ocr_total ? ', ' + f.ocr_done + ' read by OCR' : '') + ' — done' + (f.message ? ' (' + f.message + ')' : '');
      case 'unchanged': return 'already in the library';
      case 'uploading': return 'uploading…';
      case 'failed': {
        // "[pdf_corrupt] uploads/broken.pdf: corrupt ..." -> the code's plain sentence
        const m = /^\[([a-z_]+)\]\s*(.*)$/s.exec(f.message || '');
        return m ? errText({ code: m[1], message: m[2] }) : f.message ? sentence(f.message) : 'failed';
      }
      default: return f.status;
    }
  }
  // files still being added (an empty library says so, and the Ask view's hint waits for them)
  let ingesting = 0;
  function renderJob(state) {
    const list = $('ingest-status');
    list.textContent = '';
    ingesting = state && state.running ? ((state.files || []).filter((f) => !['done', 'stored', 'unchanged', 'failed'].includes(f.status)).length || 1) : 0;
    for (const r of rejected) list.appendChild(el('li', 'error', r));
    for (const f of (state && state.files) || []) {
      const cls = f.status === 'failed' ? 'error' : (f.status === 'done' || f.status === 'stored' || f.status === 'unchanged') ? 'done' : 'progress';
      list.appendChild(el('li', cls, (f.doc_id || f.name) + ': ' + statusText(f)));
    }
    if (state && state.error) list.appendChild(el('li', 'error', errText(state.error)));
    $('ingest-cancel').hidden = !(state && state.running);
  }
  async function pollIngest() {
    if (polling) return;
    polling = true;
    try {
      for (;;) {
        const st = await api.call('ingest_status');
        renderJob(st);
        if (!st.running) break;
        await new Promise((r) => setTimeout(r, 400));
        if (!$('view-library').hidden) loadDocs();
      }
    } catch (e) { rejected.push(errText(e)); renderJob(null); }
    polling = false;
    loadDocs();
  }
  $('ingest-cancel').addEventListener('click', () => api.call('cancel_ingest').catch(() => {}));

  async function addFiles(files) {
    rejected = [];
    const pdfs = [];
    for (const f of files) {
      const name = f.name || String(f);
      if (!/\.pdf$/i.test(name)) rejected.push(name.split('/').pop() + ': not a PDF, skipped');
      else pdfs.push(f);
    }
    show('library');
    // the files are listed at once, before their upload ends
    renderJob(pdfs.length ? { running: true, files: pdfs.map((f) => ({ name: f.name || String(f), status: 'uploading' })) } : null);
    if (!pdfs.length) return;
    try {
      const results = await api.addFiles(pdfs);
      for (const r of Array.isArray(results) ? results : []) if (!r.ok) rejected.push(r.file + ': ' + errText(r.error));
    } catch (e) { rejected.push(errText(e)); }
    pollIngest();
  }
  $('file-input').addEventListener('change', (ev) => { addFiles(Array.from(ev.target.files)); ev.target.value = ''; });
  // In the app, "Add PDFs" opens the native dialog, which hands the service paths (a webview's
  // File objects carry none); in a browser the file input uploads the files.
  async function chooseFiles() {
    if (api.kind !== 'tauri') { $('file-input').click(); return; }
    rejected = [];
    try {
      const st = await api.pickFiles();
      if (!st) return; // dialog closed
      show('library');
      pollIngest();
    } catch (e) { rejected.push(errText(e)); show('library'); renderJob(null); }
  }
  $('add-pdfs').addEventListener('click', (ev) => { if (api.kind === 'tauri') { ev.preventDefault(); chooseFiles(); } });
  document.addEventListener('keydown', (ev) => {
    if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && ev.key.toLowerCase() === 'o') { ev.preventDefault(); chooseFiles(); }
  });

  // drop anywhere (browser); the app receives paths from the window's drag-drop event
  let dragDepth = 0;
  window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; $('drop-hint').hidden = false; });
  window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; $('drop-hint').hidden = true; } });
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => {
    e.preventDefault(); dragDepth = 0; $('drop-hint').hidden = true;
    if (api.kind === 'http' && e.dataTransfer) addFiles(Array.from(e.dataTransfer.files));
  });
  if (window.__TAURI__ && window.__TAURI__.event) {
    // the app queues dropped files itself (with their paths) and then says `library-changed`
    const ev = window.__TAURI__.event;
    ev.listen('tauri://drag-enter', () => { $('drop-hint').hidden = false; });
    ev.listen('tauri://drag-leave', () => { $('drop-hint').hidden = true; });
    ev.listen('tauri://drag-drop', () => { $('drop-hint').hidden = true; show('library'); });
    // files were queued (a drop, a watched folder: follow their progress), removed, or refused
    ev.listen('library-changed', (e) => {
      // the team library of the last run answered after this window had loaded: load it again
      if (e.payload && e.payload.event === 'team') { location.reload(); return; }
      if (e.payload && e.payload.event === 'error') { rejected = [errText(e.payload)]; renderJob(null); }
      pollIngest();
      if (!$('view-library').hidden) loadDocs();
    });
  } else {
    // the browser has no push channel: refresh the library view while it is open (watched folders)
    setInterval(() => { if (!$('view-library').hidden && !document.querySelector('#docs input')) loadDocs(); }, 5000);
  }

  // ---- document scope: picked by hand, or detected from the question (shown as chips)
  let noFilter = false;
  // document id -> the name shown for it ("3M Company FY2018 10-K")
  const docNames = new Map();
  const shownName = (id) => docNames.get(id) || id;
  let allDocs = [];
  function fillScope(docs) {
    allDocs = docs;
    for (const d of docs) docNames.set(d.id, docName(d));
    const sel = $('scope');
    const chosen = new Set([...sel.selectedOptions].map((o) => o.value));
    sel.textContent = '';
    for (const d of docs) {
      const o = new Option(docName(d), d.id);
      o.selected = chosen.has(d.id);
      sel.appendChild(o);
    }
    // every filing in sight up to six (more scroll); an empty library says so, not "0 selected"
    sel.disabled = docs.length === 0;
    if (!docs.length) { const o = new Option('No filings yet', ''); o.disabled = true; sel.appendChild(o); }
    sel.size = Math.min(6, Math.max(2, docs.length));
  }
  function renderChips(r) {
    const box = $('chips');
    box.textContent = '';
    const picked = [...$('scope').selectedOptions].map((o) => o.value);
    if (picked.length) { box.appendChild(el('span', 'muted', 'picked by hand')); return; }
    if (!r.filter) { box.appendChild(el('span', 'muted', noFilter ? 'all documents (filter off)' : 'all documents')); return; }
    for (const id of r.filter.groups.flat()) {
      const chip = el('button', 'chip', shownName(id) + ' ×');
      chip.type = 'button';
      chip.title = id;
      chip.setAttribute('aria-label', 'Remove the ' + id + ' filter and search all documents');
      chip.addEventListener('click', () => { noFilter = true; $('ask-form').requestSubmit(); });
      box.appendChild(chip);
    }
  }
  $('q').addEventListener('input', () => { noFilter = false; });

  // ---- ask + viewer
  let current = null; // last answer
  let viewing = null; // {doc, page, zoom}
  // a thread of follow-ups: the next question is read after this answer (its log id) until
  // "New question" ends it
  let thread = null;
  function showThread() {
    $('thread').hidden = !thread;
    if (!thread) { $('q').placeholder = "e.g. What was 3M's FY2018 capital expenditure?"; return; }
    $('thread-text').textContent = 'Following up “' + thread.question + '”: what your question leaves out (company, period, figure) is kept from it.';
    $('q').placeholder = 'e.g. and in the year before? What drove it?';
  }
  $('follow-up').addEventListener('click', () => {
    if (!current || !current.log_id) return;
    thread = { of: current.log_id, question: current.question.text };
    showThread();
    $('q').value = '';
    $('q').focus();
  });
  $('thread-end').addEventListener('click', () => { thread = null; showThread(); $('q').value = ''; $('q').focus(); });
  $('ask-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const q = $('q').value.trim();
    const msg = $('ask-msg');
    if (!q) { msg.textContent = 'Type a question first.'; msg.className = 'error'; $('q').focus(); return; }
    msg.className = 'muted';
    msg.textContent = 'Reading the best pages…';
    $('answer').hidden = true;
    $('ask-btn').disabled = true;
    $('stop-btn').hidden = false;
    try {
      const docs = [...$('scope').selectedOptions].map((o) => o.value);
      // streamed: the pages read show first, then the answer text as it is produced
      let streamed = '';
      const args = { question: q, k: Number($('k').value), docs, filter: !noFilter };
      if (thread) args.follow_up_of = thread.of;
      const r = await api.stream('ask_stream', args, (e) => {
        if (e.event === 'pages') {
          msg.textContent = 'Answering from ' + e.pages.join(', ') + '…';
          $('answer').hidden = false;
          $('answer-text').textContent = '';
          $('answer-quote').hidden = true;
          const ol = $('pages-read');
          ol.textContent = '';
          for (const p of e.pages) ol.appendChild(el('li', null, p));
        } else if (e.event === 'text') {
          streamed += e.text;
          $('answer-text').textContent = streamed;
        }
      });
      renderChips(r);
      current = r;
      // the thread goes on from the latest answer
      if (thread) { thread = { of: r.log_id, question: r.question.text }; showThread(); }
      renderAnswer(r);
      msg.textContent = '';
    } catch (e) {
      if (e.code === 'cancelled') { msg.className = 'muted'; msg.textContent = 'Stopped. The log keeps the question, marked stopped.'; }
      else { msg.className = 'error'; showErr(msg, e); }
    }
    $('ask-btn').disabled = false;
    $('stop-btn').hidden = true;
  });
  // stops the answer being written (a model answer can take a while)
  $('stop-btn').addEventListener('click', () => { api.call('cancel_ask').catch(() => {}); });

  // the worked calculation: result, formula, and each operand with its page (click: the page,
  // its cells boxed)
  function renderCalculation(c) {
    $('calc').hidden = !c;
    if (!c) return;
    // a figure read as printed is a look-up, not a calculation: said so
    const lookup = c.operands.length === 1 && !/[−+÷×*/]/.test(c.formula);
    $('calc-h').textContent = lookup ? 'Where the figure comes from' : 'Worked calculation';
    $('calc').setAttribute('aria-label', $('calc-h').textContent);
    $('calc-result').textContent = c.result ? c.metric + ' = ' + c.result : c.metric + ' could not be computed: ' + (c.problem || 'unknown');
    $('calc-result').className = c.result ? '' : 'error';
    $('calc-formula').textContent = c.formula;
    const tb = $('calc-operands').querySelector('tbody');
    tb.textContent = '';
    for (const o of c.operands) {
      const tr = el('tr');
      tr.appendChild(el('td', null, o.name));
      tr.appendChild(el('td', 'nowrap', o.period));
      tr.appendChild(el('td', 'nowrap', figure(o.value)));
      tr.appendChild(el('td', null, o.unit));
      const td = el('td');
      const b = el('button', 'link');
      b.appendChild(idNode(o.page));
      b.title = o.quote;
      b.addEventListener('click', () => { const i = o.page.lastIndexOf('#'); openPage(o.page.slice(0, i), Number(o.page.slice(i + 1)), null, true); });
      td.appendChild(b);
      tr.appendChild(td);
      tb.appendChild(tr);
    }
    $('calc-operands').hidden = c.operands.length === 0;
    // every operand's page as a thumbnail with its cells boxed, in order; a click opens it
    const strip = $('calc-strip');
    strip.textContent = '';
    const seen = [];
    for (const o of c.operands) if (!seen.includes(o.page)) seen.push(o.page);
    for (const p of seen) {
      const i = p.lastIndexOf('#');
      const doc = p.slice(0, i), page = Number(p.slice(i + 1));
      const boxes = (current ? current.boxes : []).filter((x) => x.doc_id === doc && x.page === page);
      const b = el('button', 'thumb');
      b.title = p;
      b.setAttribute('aria-label', 'Open ' + p);
      const img = el('img');
      img.alt = p;
      api.pageImage(doc, page, boxes, 36).then((src) => { img.src = src; }).catch(() => { img.alt = p + ' (not shown)'; });
      b.appendChild(img);
      b.appendChild(idEl('span', 'muted', p));
      b.addEventListener('click', () => openPage(doc, page, null, true));
      strip.appendChild(b);
    }
  }

  // a question naming no company, asked of several companies' filings: say which filing answered
  // and offer the others, each one click from the same question asked of it
  function renderWhichCompany(r) {
    const box = $('which-company');
    box.textContent = '';
    const vague = (r.support_reasons || []).some((w) => w.startsWith('which company?'));
    box.hidden = !vague || !allDocs.length;
    if (box.hidden) return;
    const cited = r.citations[0] ? r.citations[0].slice(0, r.citations[0].lastIndexOf('#')) : '';
    box.appendChild(el('span', null, (cited ? 'Answered from ' + shownName(cited) + '. ' : '') + 'Which company did you mean? '));
    const byCompany = new Map();
    for (const d of allDocs) {
      const c = d.display_name || d.company || d.id;
      if (!byCompany.has(c)) byCompany.set(c, []);
      byCompany.get(c).push(d.id);
    }
    for (const [company, ids] of byCompany) {
      const b = el('button', 'chip', company);
      b.type = 'button';
      b.setAttribute('aria-label', 'Ask the same question of ' + company + "'s filings");
      b.addEventListener('click', () => {
        for (const o of $('scope').options) o.selected = ids.includes(o.value);
        $('ask-form').requestSubmit();
      });
      box.appendChild(b);
      box.appendChild(document.createTextNode(' '));
    }
  }
  // the verifier's checks: a line saying how many passed, failed or could not run, each one's
  // detail in the user's words below it (a failed one is why the answer is not green)
  function renderChecks(checks) {
    const box = $('checks');
    const list = $('checks-list');
    list.textContent = '';
    box.hidden = !checks || !checks.length;
    if (box.hidden) return;
    const count = (p) => checks.filter((c) => c.passed === p).length;
    const failed = count(false);
    const parts = [count(true) + ' passed'];
    if (failed) parts.push(failed + ' failed');
    if (count(null)) parts.push(count(null) + ' could not run');
    $('checks-summary').textContent = 'Checks: ' + parts.join(', ');
    box.classList.toggle('failed', failed > 0);
    box.open = failed > 0;
    for (const c of checks) {
      const state = c.passed === true ? 'passed' : c.passed === false ? 'failed' : 'could not run';
      const li = el('li', 'check-' + (c.passed === true ? 'pass' : c.passed === false ? 'fail' : 'none'));
      li.appendChild(el('strong', null, c.name + ' ' + state + ': '));
      li.appendChild(document.createTextNode(c.detail));
      list.appendChild(li);
    }
  }
  function renderAnswer(r) {
    $('answer').hidden = false;
    $('answer-text').textContent = r.answer;
    $('answer-text').classList.toggle('not-found', r.not_found);
    // the question as read, in one line, so a wrong reading is seen
    const reading = r.question && r.question.reading;
    $('reading').hidden = !reading;
    // a follow-up says which question it followed and what it kept from it
    const f = r.follow_up;
    const kept = f ? f.kept.filter((k) => !k.startsWith('question: ')) : [];
    const followed = f ? 'Follow-up of #' + f.of + ', asked as “' + r.question.text + '”' + (kept.length ? ' (kept ' + kept.join('; ') + ')' : '') + '. ' : '';
    $('reading').textContent = reading ? followed + 'Read as: ' + reading : '';
    // how well the cited page supports the answer: a weak one never looks like a supported one
    const sup = $('support');
    sup.hidden = r.support === 'none' || !r.support;
    sup.className = r.support || '';
    sup.textContent = r.support === 'strong' ? 'Supported by the cited page' : 'Best match, low confidence: check the page' + ((r.support_reasons || []).length ? ' (' + r.support_reasons.join('; ') + ')' : '');
    // "Not found" says why when the service knows (no filing of the company asked, the pages
    // are off the question's topic)
    if (r.not_found && (r.support_reasons || []).length) {
      sup.hidden = false;
      sup.className = 'none';
      sup.textContent = 'Why: ' + sentence(r.support_reasons.join('; ')) + '.';
    }
    $('answer-text').classList.toggle('weak', r.support === 'weak');
    renderWhichCompany(r);
    $('answer-quote').textContent = r.quote ? '“' + r.quote + '”' : '';
    // a sentence answered with itself is shown once
    const bare = (t) => (t || '').replace(/[“”"\s]+/g, ' ').trim().toLowerCase();
    $('answer-quote').hidden = !r.quote || bare(r.quote) === bare(r.answer);
    renderCalculation(r.calculation);
    renderChecks(r.checks);
    // each note a sentence of its own ("…question. The model ran on the processor.")
    const notes = (r.notes || []).map((n) => (/[.!?]$/.test(n) ? n : n + '.'));
    const scope = (r.filter ? ' · searched ' + r.filter.groups.flat().map(shownName).join(', ') : '') + (notes.length ? ' · ' + notes.join(' ') : '');
    const m = r.model ? ' (' + r.model.model + ': ' + r.model.prompt_tokens + ' prompt tokens at ' + r.model.prefill_tps.toFixed(0) + '/s, ' + r.model.new_tokens + ' written at ' + r.model.decode_tps.toFixed(1) + '/s)' : '';
    // the notes come in a user's words (the service's wording table); the notes as written,
    // passage ids and build details, are one click away
    const found = { quote: 'the quoted line is highlighted', numbers: "the answer's figures are highlighted", calculation: 'each operand is highlighted', none: 'nothing is highlighted' }[r.found_by] || '';
    // in a user's words: who answered (the calculator, the page's own line, the model), where,
    // and how the pages were found; the names the service uses are under Details
    const by = r.found_by === 'calculation' ? 'worked out by the calculator' : r.model ? 'written by the model' : r.not_found ? 'nothing quoted' : 'quoted from the page';
    const where = r.device.startsWith('cpu') ? "this computer's processor" : r.device.startsWith('cuda') || r.device.startsWith('metal') ? 'the graphics processor' : r.device;
    const how = { bm25: 'keyword search', dense: 'meaning search', hybrid: 'keyword + meaning search', vision: 'page-image search' }[r.retriever] || r.retriever;
    $('answer-meta').textContent = '';
    $('answer-meta').appendChild(wholeWords('pages found in ' + r.retrieve_ms.toFixed(0) + ' ms by ' + how + ' · answered in ' + r.answer_ms.toFixed(0) + ' ms, ' + by + m + ' on ' + where + (found ? ' · ' + found : '') + scope));
    const details = [r.answerer + ' answerer, ' + r.retriever + ' retriever, device ' + r.device].concat(r.details || []).concat(r.model ? (r.model.notes || []).filter((n) => !(r.details || []).includes(n)) : []);
    if (details.length) withDetails($('answer-meta'), details.join('\n'));
    $('fb-msg').textContent = '';
    $('wp-msg').textContent = '';
    $('fb-note').value = '';
    for (const b of ['fb-up', 'fb-down']) $(b).setAttribute('aria-pressed', 'false');
    const ol = $('pages-read');
    ol.textContent = '';
    // each page read: one click to view it; its heading and the lines that matched
    const info = new Map((r.page_info || []).map((x) => [x.page, x]));
    // the question's content words as the server read them (one reader: question.rs)
    const terms = (r.question && r.question.terms) || [];
    for (const p of r.pages) {
      const li = el('li');
      const b = el('button', 'link');
      b.appendChild(idNode(p));
      const cited = r.citations.includes(p);
      if (cited) { b.classList.add('cited'); b.setAttribute('aria-label', p + ' (cited)'); }
      b.addEventListener('click', () => { const i = p.lastIndexOf('#'); openPage(p.slice(0, i), Number(p.slice(i + 1)), null, true); });
      li.appendChild(b);
      if (cited) li.appendChild(el('span', 'badge', 'cited'));
      const x = info.get(p);
      // where the page sits in the filing: "Item 3. Legal Proceedings, p. 21"
      if (x) li.appendChild(el('span', 'muted', ' ' + (x.section ? x.section + ', ' : '') + x.shown));
      if (x && x.heading) li.appendChild(el('div', 'page-head', x.heading.length > 110 ? x.heading.slice(0, 110) + '…' : x.heading));
      if (x && x.snippet) { const sn = el('p', 'snippet'); sn.appendChild(marked(x.snippet, terms)); li.appendChild(sn); }
      ol.appendChild(li);
    }
    // the cited page opens beside the answer (under it in a narrow window, where the answer
    // stays in view and "Show it on the page" goes down to it)
    $('see-page-p').hidden = !r.citations.length;
    if (r.citations.length) {
      const c = r.citations[0];
      const x = info.get(c);
      $('see-page').textContent = 'Show it on the page (' + shownName(c.slice(0, c.lastIndexOf('#'))) + ', ' + (x ? x.shown : 'PDF page ' + c.slice(c.lastIndexOf('#') + 1)).replace(/ (?=\d)/g, '\u00a0') + ')';
      const i = c.lastIndexOf('#');
      openPage(c.slice(0, i), Number(c.slice(i + 1)), 1, false, true);
    } else $('viewer').hidden = true;
  }

  // `reveal`: a click asked for this page, so a narrow window (the page under the answer) scrolls
  // to it; a page opened by an arriving answer leaves the answer in view
  async function openPage(doc, page, zoom, reveal, auto) {
    viewing = { doc, page, zoom: zoom || (viewing && viewing.zoom) || 1, auto: !!auto };
    $('viewer').hidden = false;
    // the printed page number beside the PDF index, when the answer knows it
    const known = current && (current.page_info || []).concat(current.cited || []).find((x) => x.page === doc + '#' + page);
    $('viewer-title').textContent = shownName(doc) + ' · ' + (known ? known.shown : 'PDF page ' + page);
    $('viewer-title').title = doc + '#' + page;
    // the boxes the ask returned for this page (none for other pages): the server draws them
    const boxes = current ? current.boxes.filter((x) => x.doc_id === doc && x.page === page) : [];
    const cited = boxes.length > 0;
    // a narrow window stacks the page under the answer: bring it into view
    if (window.innerWidth < 1100 && reveal) $('viewer').scrollIntoView({ block: 'start' });
    try {
      const src = await api.pageImage(doc, page, boxes, Math.round(110 * viewing.zoom));
      // at the first zoom the page fits the column's width; + renders it larger
      $('page-img').classList.toggle('fit', viewing.zoom <= 1);
      $('page-img').style.width = '';
      $('page-img').src = src;
      $('page-img').alt = 'Page ' + page + ' of ' + doc + (cited ? ', evidence highlighted' : '');
    } catch (e) { showErr($('viewer-title'), e); }
  }
  // the page arrives readable, with its evidence in view. An answer's cited page opens at the
  // column's width; if its evidence lines (their boxes' heights, in PDF points, are the type's
  // height) would be drawn small there, it opens larger: up to GLYPH_PX pixels high while every
  // box still fits side by side in the column (no smaller than SIDE_GLYPH_PX for that); when
  // they cannot fit at that size, at MIN_GLYPH_PX, scrolled sideways to the evidence. + and -
  // zoom by hand from there.
  const GLYPH_PX = 10, SIDE_GLYPH_PX = 8, MIN_GLYPH_PX = 9;
  const boxesShown = () => (current && viewing ? current.boxes.filter((x) => x.doc_id === viewing.doc && x.page === viewing.page) : []);
  $('page-img').addEventListener('load', () => {
    const img = $('page-img');
    const onPage = boxesShown();
    if (viewing && viewing.auto && onPage.length) {
      viewing.auto = false;
      const wPt = img.naturalWidth * 72 / (110 * viewing.zoom);
      const shown = img.clientWidth / wPt; // CSS px per point now
      const h = Math.min(...onPage.map((x) => x.t - x.b));
      const span = Math.max(...onPage.map((x) => x.r)) - Math.min(...onPage.map((x) => x.l));
      const side = 0.95 * $('viewer-scroll').clientWidth / span;
      const want = side * h >= SIDE_GLYPH_PX ? Math.min(GLYPH_PX / h, side) : MIN_GLYPH_PX / h;
      // zoom z draws 110 z dpi = 1.53 z px per point, unshrunk above 1; under that, this image
      // is drawn at the size wanted
      if (h > 0 && want > shown * 1.02) {
        const z = want * 72 / (110 * viewing.zoom);
        if (z > 1) { openPage(viewing.doc, viewing.page, Math.min(4, viewing.zoom * z)); return; }
        img.classList.remove('fit');
        img.style.width = Math.round(wPt * want) + 'px';
      }
    }
    if (onPage.length) $('v-jump').click();
  });
  $('page-img').addEventListener('error', () => { $('viewer-title').textContent = 'This page could not be shown (see the log for details).'; });
  $('see-page').addEventListener('click', () => {
    if (!current || !current.citations.length) return;
    const c = current.citations[0];
    const i = c.lastIndexOf('#');
    openPage(c.slice(0, i), Number(c.slice(i + 1)), 1, true, true);
  });
  $('v-prev').addEventListener('click', () => viewing && viewing.page > 1 && openPage(viewing.doc, viewing.page - 1));
  $('v-next').addEventListener('click', () => viewing && openPage(viewing.doc, viewing.page + 1));
  $('v-zoom-in').addEventListener('click', () => viewing && openPage(viewing.doc, viewing.page, Math.min(viewing.zoom * 1.25, 4)));
  $('v-zoom-out').addEventListener('click', () => viewing && openPage(viewing.doc, viewing.page, Math.max(viewing.zoom / 1.25, 0.5)));
  // keyboard in the page viewer: n / p pages, + / - zoom, only while the viewer has focus (a
  // click on the page or its buttons, or Tab), shown by its focus ring; typed letters elsewhere
  // never turn pages
  $('viewer-scroll').addEventListener('mousedown', () => $('viewer-scroll').focus({ preventScroll: true }));
  $('viewer').addEventListener('focusin', () => $('viewer-scroll').classList.add('focused'));
  $('viewer').addEventListener('focusout', (ev) => { if (!$('viewer').contains(ev.relatedTarget)) $('viewer-scroll').classList.remove('focused'); });
  document.addEventListener('keydown', (ev) => {
    if ($('view-ask').hidden || !viewing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (!(ev.target.closest && ev.target.closest('#viewer'))) return;
    if (ev.target.closest('input, textarea, select')) return;
    const id = { n: 'v-next', p: 'v-prev', '+': 'v-zoom-in', '=': 'v-zoom-in', '-': 'v-zoom-out' }[ev.key];
    if (id) { ev.preventDefault(); $(id).click(); }
  });
  // Ctrl+S saves the answer's workpaper as HTML, Ctrl+Shift+S as PDF; "/" goes to the question
  document.addEventListener('keydown', (ev) => {
    if ($('view-ask').hidden) return;
    if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && ev.key.toLowerCase() === 's') {
      ev.preventDefault();
      if (current && current.log_id) workpaper([current.log_id], ev.shiftKey ? 'pdf' : 'html', 'wp-msg');
    } else if (ev.key === '/' && !(ev.target.closest && ev.target.closest('input, textarea, select'))) {
      ev.preventDefault();
      $('q').focus();
    }
  });
  $('v-jump').addEventListener('click', () => {
    const onPage = boxesShown();
    if (!onPage.length) return;
    const img = $('page-img');
    const sc = $('viewer-scroll');
    const ptToPx = img.clientWidth / (img.naturalWidth * 72 / (110 * viewing.zoom));
    const hPt = img.naturalHeight * 72 / (110 * viewing.zoom);
    // the first box's line a little under the top
    $('viewer-scroll').scrollTop = Math.max(0, (hPt - onPage[0].t) * ptToPx - 80);
    // sideways: every box when they fit side by side, else the one that matters most: a
    // figure's cell (a narrow box, at the right of its row) or the start of the quoted line
    const [l, r] = [Math.min(...onPage.map((x) => x.l)) * ptToPx, Math.max(...onPage.map((x) => x.r)) * ptToPx];
    const cell = onPage.find((x) => x.r - x.l < 100);
    const [tl, tr] = r - l <= sc.clientWidth - 40 ? [l, r] : cell ? [cell.l * ptToPx, cell.r * ptToPx] : [onPage[0].l * ptToPx, onPage[0].l * ptToPx + sc.clientWidth - 40];
    if (tr > sc.scrollLeft + sc.clientWidth - 20 || tl < sc.scrollLeft + 20) sc.scrollLeft = Math.max(0, tr - tl <= sc.clientWidth - 40 ? (tl + tr - sc.clientWidth) / 2 : tl - 20);
  });

  async function feedback(value) {
    if (!current) return;
    try {
      await api.call('feedback', { id: current.log_id, value, note: $('fb-note').value });
      $('fb-msg').textContent = value > 0 ? 'Thanks — marked good.' : 'Thanks — marked wrong.';
      // the choice made is drawn pressed; both stay neutral until one is clicked
      $('fb-up').setAttribute('aria-pressed', String(value > 0));
      $('fb-down').setAttribute('aria-pressed', String(value < 0));
    } catch (e) { showErr($('fb-msg'), e); }
  }
  $('fb-up').addEventListener('click', () => feedback(1));
  $('fb-down').addEventListener('click', () => feedback(-1));

  // a workpaper of logged answers `ids` (the Log passes them in its order, newest first); the
  // Ask view's buttons make one of the answer shown
  async function workpaper(ids, format, msgId) {
    const msg = $(msgId);
    msg.className = 'muted';
    msg.textContent = 'Making the workpaper…';
    try {
      const saved = await api.saveWorkpaper({ ids, format });
      msg.textContent = saved ? 'Workpaper saved: ' + saved : '';
    } catch (e) { msg.className = 'error'; showErr(msg, e, 'No workpaper: '); }
  }
  for (const f of ['html', 'pdf']) $('wp-' + f).addEventListener('click', () => current && current.log_id && workpaper([current.log_id], f, 'wp-msg'));
  // the answer's figures as a spreadsheet: each operand (or the quoted line) with its trace
  for (const f of ['csv', 'xlsx']) {
    $('x-' + f).addEventListener('click', async () => {
      if (!current || !current.log_id) return;
      const msg = $('wp-msg');
      msg.className = 'muted';
      msg.textContent = 'Making the spreadsheet…';
      try {
        const saved = await api.saveWorkpaper({ ids: [current.log_id], format: f });
        msg.textContent = saved ? 'Spreadsheet saved: ' + saved : '';
      } catch (e) { msg.className = 'error'; showErr(msg, e, 'No spreadsheet: '); }
    });
  }
  // the tables read from the page in view, as a workbook
  $('v-tables').addEventListener('click', async () => {
    if (!viewing) return;
    const msg = $('wp-msg');
    msg.className = 'muted';
    msg.textContent = "Reading the page's tables…";
    try {
      const saved = await api.saveTables({ page: viewing.doc + '#' + viewing.page, format: 'xlsx' });
      msg.textContent = saved ? 'Tables saved: ' + saved : '';
    } catch (e) { msg.className = 'error'; showErr(msg, e, 'No tables: '); }
  });
  // an answer shown again in the Ask view (from the Log): answer, quote, pages read, the cited page boxed
  function showAnswer(r, note) {
    show('ask');
    $('q').value = typeof r.question === 'string' ? r.question : (r.question && r.question.text) || '';
    // a reopened answer starts no thread; "Ask a follow-up" starts one from it
    thread = null;
    showThread();
    current = r;
    renderAnswer(r);
    $('ask-msg').className = 'muted';
    $('ask-msg').textContent = note;
  }

  register('ask', {});
  register('library', { load: loadDocs });
  // what the views in their own files (log.js, settings.js, labeler.js) share with this one
  window.lensUi = { $, el, idNode, idEl, wholeWords, figure, errText, showErr, plural, show, marked, sentence, withDetails, showAnswer, workpaper, register };

  // the library this window works on: its folder, or the team server and who is signed in
  api.call('app_info').then((i) => { $('library-info').textContent = i.team ? 'team library ' + i.team + (i.user ? ' · ' + i.user : '') : i.library; }).catch(() => {});
  api.call('documents').then((d) => emptyHint(d.length)).catch(() => {});
  loadDocs();
})();
