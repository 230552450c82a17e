// The one place the UI talks to the backend: Tauri IPC inside the app, HTTP under `lens serve`.
// Errors always arrive as {code, message}.
(function () {
  const tauri = window.__TAURI__ && window.__TAURI__.core;
  // `lens serve` swaps the printed URL's token for a cookie (HttpOnly, SameSite=Strict); a token
  // still in the URL (older links) is sent as a header too
  const token = new URLSearchParams(location.search).get('token') || '';
  const auth = token ? { 'x-lens-token': token } : {};
  const asError = (e) => (e && e.code) ? e : { code: 'internal', message: String(e && e.message || e) };

  // POST a command to `lens serve`; a network failure becomes {code: 'offline'}.
  async function post(cmd, args) {
    try {
      return await fetch('/api/' + cmd, {
        method: 'POST',
        headers: Object.assign({ 'content-type': 'application/json' }, auth),
        body: JSON.stringify(args || {}),
      });
    } catch (e) { throw { code: 'offline', message: 'the 10-K Lens server is not reachable' }; }
  }

  async function call(cmd, args) {
    if (tauri) {
      try { return await tauri.invoke('api', { cmd, args: args || {} }); } catch (e) { throw asError(e); }
    }
    const r = await post(cmd, args);
    const body = await r.json().catch(() => ({ code: 'internal', message: 'bad response' }));
    if (!r.ok) throw asError(body);
    return body;
  }

  // A streamed command: `onEvent` gets each event as it arrives; resolves to the final response
  // (the `done` event's), rejects with {code, message}.
  async function stream(cmd, args, onEvent) {
    if (tauri) {
      const ch = new tauri.Channel();
      ch.onmessage = (e) => onEvent(e);
      try { return await tauri.invoke(cmd, { args: args || {}, onEvent: ch }); } catch (e) { throw asError(e); }
    }
    const r = await post(cmd, args);
    if (!r.ok) throw asError(await r.json().catch(() => ({ code: 'internal', message: 'bad response' })));
    const reader = r.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    let done = null;
    for (;;) {
      const { value, done: end } = await reader.read();
      if (value) buf += dec.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (!line) continue;
        const e = JSON.parse(line);
        if (e.event === 'error') throw asError(e);
        if (e.event === 'done') done = e.response;
        onEvent(e);
      }
      if (end) break;
    }
    if (!done) throw { code: 'internal', message: 'the answer stream ended early' };
    return done;
  }

  // URL (or data URL) of a rendered page with `boxes` ({l, b, r, t} in PDF points, as an ask
  // returned them) drawn on it.
  async function pageImage(doc, page, boxes, dpi) {
    const rects = (boxes || []).map((x) => ({ l: x.l, b: x.b, r: x.r, t: x.t }));
    if (tauri) {
      try { return await tauri.invoke('page_image', { args: { doc, page, boxes: rects, dpi: dpi || 110 } }); } catch (e) { throw asError(e); }
    }
    const q = new URLSearchParams({ doc, page: String(page), dpi: String(dpi || 110) });
    if (token) q.set('token', token);
    if (rects.length) q.set('boxes', JSON.stringify(rects));
    return '/api/page.png?' + q.toString();
  }

  // Add files: File objects in the browser (uploaded), paths in the app.
  async function addFiles(files) {
    if (tauri) return call('ingest_paths', { paths: files.map((f) => f.path || f) });
    const results = [];
    for (const f of files) {
      try {
        const r = await fetch('/api/upload?name=' + encodeURIComponent(f.name), { method: 'POST', headers: auth, body: f });
        const body = await r.json().catch(() => ({ code: 'internal', message: 'bad response' }));
        results.push(r.ok ? { file: f.name, ok: true, result: body } : { file: f.name, ok: false, error: asError(body) });
      } catch (e) { results.push({ file: f.name, ok: false, error: asError(e) }); }
    }
    return results;
  }

  // The app's native "Add PDFs" dialog: it queues the chosen files itself and resolves to the
  // ingest queue, or null when the dialog was closed. Only the app has one (`null` in a browser,
  // which uses its file input instead).
  async function pickFiles() {
    if (!tauri) return null;
    try { return await tauri.invoke('pick_pdfs'); } catch (e) { throw asError(e); }
  }

  // A workpaper of logged answers ({ids, format: 'html'|'pdf'}): in the app the native save
  // dialog asks where (resolves to the saved path, or null when closed); in a browser the file
  // is downloaded (resolves to its name).
  async function saveWorkpaper(args) {
    return saveFile('export_workpaper', 'workpaper', args);
  }

  // The tables read from a page as a spreadsheet ({page, format}); saved as a workpaper is.
  async function saveTables(args) {
    return saveFile('export_tables', 'tables_export', args);
  }

  // A file the service makes: through the app's command and its save dialog, else the HTTP
  // command's base64 bytes downloaded.
  async function saveFile(appCmd, cmd, args) {
    if (tauri) {
      try { return await tauri.invoke(appCmd, { args }); } catch (e) { throw asError(e); }
    }
    const f = await call(cmd, args);
    const bin = atob(f.base64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return download(new Blob([bytes], { type: f.mime }), f.name);
  }

  // A browser download of `blob` as `name` (resolves to the name).
  function download(blob, name) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
    return name;
  }

  // A text file the UI made (the Log's or the labeler's JSONL): in the app the native save
  // dialog asks where (resolves to the saved path, or null when closed), since a webview saves
  // no downloads; in a browser it is downloaded (resolves to its name).
  async function saveText(name, text, mime) {
    if (tauri) {
      try { return await tauri.invoke('save_text', { name, text }); } catch (e) { throw asError(e); }
    }
    return download(new Blob([text], { type: mime || 'text/plain' }), name);
  }

  // A text file the user picks ({name, text}, or null when the dialog was closed): the app's
  // native open dialog; null in a browser, which uses its file input instead.
  async function openText(title, extensions) {
    if (!tauri) return null;
    try { return await tauri.invoke('open_text', { title, extensions }); } catch (e) { throw asError(e); }
  }

  window.lensApi = { call, stream, pageImage, addFiles, pickFiles, saveWorkpaper, saveTables, saveText, openText, kind: tauri ? 'tauri' : 'http' };
})();
