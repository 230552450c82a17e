// The Settings view: the library's settings (models, retriever, answerer, OCR, threads, device),
// the models found, and the watched folders. A view in its own file, as labeler.js.
(function () {
  const api = window.lensApi;
  const { $, el, showErr, sentence, withDetails, register } = window.lensUi;
  // the answerers this setup offers and the language models found: refreshed after Save and,
  // while Settings is open, every few seconds (a model file copied into the models folder shows)
  function renderModels(r) {
    const sel = $('s-answerer');
    const chosen = sel.value || r.settings.answerer;
    sel.textContent = '';
    const answererWords = { extractive: 'Quoted from the page (no model)', qwen: 'Written by the language model' };
    for (const x of r.answerers) sel.appendChild(new Option(answererWords[x] || x, x));
    sel.value = r.answerers.includes(chosen) ? chosen : r.settings.answerer;
    const dl = $('s-models-found');
    dl.textContent = '';
    for (const m of r.models || []) if (m.supported) dl.appendChild(new Option(m.path, m.path));
    const found = (r.models || []).map((m) => m.name + ' (' + m.arch + ', ' + (m.size_bytes / 1e6).toFixed(0) + ' MB, ' + m.found_in + (m.problem ? ', not usable: ' + sentence(m.problem) : '') + ')');
    const info = $('s-models-info');
    // never "none found" while a model answers: the one in use is named
    info.textContent = found.length ? 'Found: ' + found.join('; ') + '.' : r.model_in_use ? '' : 'No language model found.';
    if (r.model_in_use) info.appendChild(document.createTextNode((found.length ? ' ' : '') + 'In use: ' + r.model_in_use + '.'));
    if (r.qwen_missing) {
      info.appendChild(document.createTextNode(' The qwen answerer is not offered: put a Qwen .gguf file (or a model folder) in the models folder above, then Save.'));
      withDetails(info, r.qwen_missing);
    }
    lastModels = modelsKey(r);
  }
  // the models the app can fetch, each with its size; a fetch runs in the background with its
  // progress shown, and the lists above refresh when it is done
  const modelName = { minilm: 'MiniLM', qwen: 'Qwen' };
  async function renderFetchable() {
    const box = $('s-fetch');
    let list;
    try { list = await api.call('models_fetchable'); } catch (e) { showErr(box, e); return; }
    box.textContent = '';
    for (const m of list) {
      const row = el('p', 'muted');
      const name = modelName[m.id] || m.id;
      row.appendChild(el('strong', null, name));
      row.appendChild(document.createTextNode(': ' + m.about + '. '));
      if (m.present) row.appendChild(document.createTextNode('Installed in the models folder.'));
      else {
        const b = el('button', 'secondary', 'Fetch ' + name + ' (' + m.mb + ' MB)');
        b.type = 'button';
        b.id = 's-fetch-' + m.id;
        b.addEventListener('click', () => startFetch(m.id));
        row.appendChild(b);
      }
      box.appendChild(row);
    }
    const msg = el('p', 'muted');
    msg.id = 's-fetch-msg';
    msg.setAttribute('role', 'status');
    box.appendChild(msg);
  }
  async function startFetch(id) {
    try { await api.call('model_fetch', { name: id }); pollFetch(); } catch (e) { showErr($('s-fetch-msg'), e); }
  }
  async function pollFetch() {
    let st;
    try { st = await api.call('model_fetch_status'); } catch (e) { showErr($('s-fetch-msg'), e); return; }
    const msg = $('s-fetch-msg');
    if (!msg) return;
    msg.className = st.error ? 'error' : 'muted';
    if (st.running) {
      const mb = (n) => (n / 1e6).toFixed(0);
      msg.textContent = st.what ? 'Fetching ' + st.what + ': ' + mb(st.done_bytes) + (st.total_bytes ? ' of ' + mb(st.total_bytes) : '') + ' MB…' : sentence(st.message) + '…';
      setTimeout(pollFetch, 700);
      return;
    }
    await renderFetchable();
    const done = $('s-fetch-msg');
    done.className = st.error ? 'error' : 'muted';
    done.textContent = st.error ? 'Not fetched: ' + sentence(st.error) + ' Fetch again to go on.' : st.model ? (modelName[st.model] || st.model) + ' is ready: every file checked against its pinned sha256.' : '';
    try { renderModels(await api.call('get_settings')); } catch (_) { /* the next tick */ }
  }

  // what the chosen retriever reads now, and what the last question ran on (from the log)
  function renderRetriever(r) {
    const info = $('s-retriever-info');
    info.textContent = 'Reads now: ' + r.retriever_reads + '.';
    const ran = r.retriever_ran;
    const words = { bm25: 'keyword search', dense: 'meaning search', hybrid: 'keyword + meaning search', vision: 'page-image search' };
    if (ran) {
      // the date and time never broken at their hyphens
      info.appendChild(document.createTextNode(' Last question ('));
      info.appendChild(el('span', 'nowrap', ran.time.slice(0, 19).replace('T', ' ') + ' UTC'));
      info.appendChild(document.createTextNode(') ran on ' + (words[ran.retriever] || ran.retriever) + (ran.lists.length > 1 ? ' (' + ran.lists.map((l) => words[l] || l).join(' + ') + ')' : '') + '.'));
    }
    else info.appendChild(document.createTextNode(' No question asked yet.'));
  }
  // what the model list shows, to redraw it only when it changed
  const modelsKey = (r) => JSON.stringify([r.answerers, (r.models || []).map((m) => m.path), r.model_in_use]);
  let lastModels = '';
  setInterval(async () => {
    if ($('view-settings').hidden) return;
    try {
      const r = await api.call('get_settings');
      if (modelsKey(r) !== lastModels) renderModels(r);
    } catch (_) { /* the next tick tries again */ }
  }, 4000);
  async function loadSettings() {
    try {
      const r = await api.call('get_settings');
      const st = r.settings;
      $('s-library').value = r.library_dir;
      $('s-models').value = st.models_dir;
      renderFetchable();
      $('s-model').value = st.model;
      $('s-embedder').value = st.embedder;
      $('s-vision-model').value = st.vision_model;
      $('s-vision-edge').value = String(st.vision_edge);
      $('s-vision-pooled').checked = !!st.vision_pooled;
      const sel = $('s-retriever');
      sel.textContent = '';
      const retrieverWords = { bm25: 'Keyword search', dense: 'Meaning search', hybrid: 'Keyword + meaning search', vision: 'Page-image search' };
      for (const x of r.retrievers) sel.appendChild(new Option(retrieverWords[x] || x, x));
      sel.value = st.retriever;
      renderRetriever(r);
      $('s-answerer').value = '';
      renderModels(r);
      $('s-topk').value = st.top_k;
      $('s-ocr').value = st.ocr_langs;
      $('s-threads').value = st.threads;
      $('s-model-threads').value = st.model_threads;
      // the devices with whether this machine has them: one it lacks is shown, not offered
      const dev = $('s-device');
      dev.textContent = '';
      dev.appendChild(new Option('Automatic', 'auto'));
      for (const d of r.devices || []) {
        const label = d.name === 'cpu' ? 'Processor' : (d.name === 'cuda' ? 'NVIDIA GPU (CUDA)' : 'Apple GPU (Metal)') + (d.usable ? '' : ': not here');
        const o = new Option(label, d.name);
        o.disabled = !d.usable && st.device !== d.name;
        o.title = d.detail;
        dev.appendChild(o);
      }
      dev.value = st.device || 'auto';
      $('settings-msg').textContent = '';
    } catch (e) { showErr($('settings-msg'), e); }
    loadWatches();
  }
  async function loadWatches() {
    const ul = $('watches');
    ul.textContent = '';
    try {
      const ws = await api.call('watch_status');
      if (!ws.length) ul.appendChild(el('li', 'muted', 'none'));
      for (const { folder: w, paused } of ws) {
        const li = el('li', null, w + ' ');
        if (paused) {
          // a folder that could not be read is not followed until it is added again
          li.appendChild(el('span', 'error', 'paused: ' + paused + ' '));
          const again = el('button', 'secondary', 'Resume');
          again.addEventListener('click', async () => { try { await api.call('add_watch', { folder: w }); loadWatches(); } catch (e) { showErr($('watch-msg'), e); } });
          li.appendChild(again);
        }
        const rm = el('button', 'secondary', 'Stop watching');
        rm.setAttribute('aria-label', 'Stop watching ' + w);
        rm.addEventListener('click', async () => { try { await api.call('remove_watch', { folder: w }); loadWatches(); } catch (e) { showErr($('watch-msg'), e); } });
        li.appendChild(rm);
        ul.appendChild(li);
      }
    } catch (e) { showErr($('watch-msg'), e); }
  }
  $('watch-add').addEventListener('click', async () => {
    const f = $('watch-path').value.trim();
    if (!f) { $('watch-msg').textContent = 'Type a folder path first.'; return; }
    try { await api.call('add_watch', { folder: f }); $('watch-path').value = ''; $('watch-msg').textContent = 'Watching.'; loadWatches(); } catch (e) { showErr($('watch-msg'), e); }
  });

  $('settings-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const msg = $('settings-msg');
    try {
      const r = await api.call('set_settings', {
        library_dir: $('s-library').value,
        settings: {
          models_dir: $('s-models').value, model: $('s-model').value, embedder: $('s-embedder').value, retriever: $('s-retriever').value, answerer: $('s-answerer').value,
          vision_model: $('s-vision-model').value.trim(), vision_edge: Number($('s-vision-edge').value), vision_pooled: $('s-vision-pooled').checked,
          top_k: Number($('s-topk').value), ocr_langs: $('s-ocr').value.trim(), threads: Number($('s-threads').value), model_threads: Number($('s-model-threads').value), device: $('s-device').value,
        },
      });
      // what the new settings make available (a models folder with a model: the qwen answerer)
      await loadSettings();
      msg.className = 'done';
      msg.textContent = 'Saved.' + (r.restart_needed ? ' The new library folder is used from the next start.' : '');
      $('k').value = String(r.settings.top_k);
    } catch (e) { msg.className = 'error'; showErr(msg, e); }
  });

  // Team library (the app only: a browser is already on a server): the window works on a team
  // server's library with this user's token, or on this machine's
  async function loadTeam() {
    if (api.kind !== 'tauri') return;
    $('team-box').hidden = false;
    try { renderTeam(await api.call('team_get')); } catch (e) { showErr($('team-msg'), e); }
  }
  function renderTeam(t) {
    $('team-status').textContent = t.connected
      ? 'This window works on the team library at ' + t.connected + ': questions, labels and workpapers go there under your name, and what your role allows is what you can do.'
      : 'This window works on this machine\'s library.';
    if (t.url && !$('t-url').value) $('t-url').value = t.url;
    if (t.certificate && !$('t-cert').value) $('t-cert').value = t.certificate;
    $('t-disconnect').hidden = !t.connected;
    document.title = t.connected ? '10-K Lens — team library' : '10-K Lens';
  }
  // connected or back on this machine: every view reloads from the library now in use
  $('team-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const msg = $('team-msg');
    msg.className = 'muted';
    msg.textContent = 'Connecting…';
    try {
      const t = await api.call('team_connect', { url: $('t-url').value, token: $('t-token').value, certificate: $('t-cert').value });
      $('t-token').value = '';
      renderTeam(t);
      location.reload();
    } catch (e) { msg.className = 'error'; showErr(msg, e); }
  });
  $('t-disconnect').addEventListener('click', async () => {
    try { renderTeam(await api.call('team_disconnect')); location.reload(); } catch (e) { showErr($('team-msg'), e); }
  });
  loadTeam();

  register('settings', { load: () => { loadSettings(); loadTeam(); } });
})();
