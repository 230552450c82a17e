(function () {
  const api = window.lensApi;
  const $ = (id) => document.getElementById(id);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  async function loadInfo() {
    try {
      const info = await api.call('app_info');
      $('library-info').textContent = 'Library: ' + info.library;
    } catch (e) { /* shown by loadDocs */ }
  }

  async function loadDocs() {
    const ul = $('docs');
    ul.textContent = '';
    try {
      const docs = await api.call('documents');
      $('lib-msg').textContent = docs.length ? docs.length + ' documents' : 'No documents yet. Ingest PDFs with `lens ingest PATH`.';
      for (const d of docs) {
        const li = el('li');
        li.appendChild(el('strong', null, d.title || d.id));
        li.appendChild(el('span', 'muted', ' · ' + d.pages + ' pages' + (d.form ? ' · ' + d.form : '')));
        ul.appendChild(li);
      }
    } catch (e) {
      $('lib-msg').textContent = 'Could not read the library [' + e.code + ']: ' + e.message;
    }
  }

  $('search-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const q = $('q').value.trim();
    const msg = $('search-msg');
    const ol = $('hits');
    ol.textContent = '';
    if (!q) { msg.textContent = 'Type a question first.'; return; }
    msg.textContent = 'Searching…';
    try {
      const r = await api.call('search', { query: q, k: 10 });
      msg.textContent = r.hits.length + ' pages in ' + r.elapsed_ms.toFixed(1) + ' ms' + (r.notes.length ? ' — ' + r.notes.join('; ') : '');
      for (const h of r.hits) {
        const li = el('li');
        li.appendChild(el('strong', null, h.doc_id + ' p.' + h.page));
        li.appendChild(el('p', 'snippet', h.snippet));
        ol.appendChild(li);
      }
    } catch (e) {
      msg.textContent = '[' + e.code + '] ' + e.message;
    }
  });

  loadInfo();
  loadDocs();
})();
