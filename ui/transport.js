// The one place the UI talks to the backend: Tauri IPC inside the app, HTTP under `lens serve`.
// Errors always arrive as {code, message}.
(function () {
  const tauri = window.__TAURI__ && window.__TAURI__.core;
  const token = new URLSearchParams(location.search).get('token') || '';
  async function call(cmd, args) {
    if (tauri) {
      try {
        return await tauri.invoke(cmd, args || {});
      } catch (e) {
        throw (e && e.code) ? e : { code: 'internal', message: String(e) };
      }
    }
    const r = await fetch('/api/' + cmd, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-lens-token': token },
      body: JSON.stringify(args || {}),
    });
    const body = await r.json().catch(() => ({ code: 'internal', message: 'bad response' }));
    if (!r.ok) throw body;
    return body;
  }
  window.lensApi = { call, kind: tauri ? 'tauri' : 'http' };
})();
