// The Log view: every question asked, filtered, ticked into workpapers, exported as JSONL, a
// row reopened in the Ask view or turned into a question to label. A view in its own file, as
// labeler.js: the shared helpers come from window.lensUi, the service from window.lensApi.
(function () {
  const api = window.lensApi;
  const { $, el, idNode, errText, showErr, plural, showAnswer, workpaper, register } = window.lensUi;
  // ---- log
  let logRows = [];
  async function loadLog() {
    const tbody = $('log').querySelector('tbody');
    tbody.textContent = '';
    try { logRows = await api.call('log', { limit: 500 }); } catch (e) { tbody.appendChild(el('tr', 'error', errText(e))); return; }
    const f = $('log-filter').value;
    const ans = $('log-answerer').value;
    const since = $('log-since').value;
    const answerers = new Set(logRows.map((r) => r.answerer));
    const sel = $('log-answerer');
    for (const a of answerers) if (![...sel.options].some((o) => o.value === a)) sel.appendChild(new Option(a, a));
    for (const r of logRows) {
      if (ans && r.answerer !== ans) continue;
      if (since && r.time.slice(0, 10) < since) continue;
      if (f === '1' && r.feedback !== 1) continue;
      if (f === '-1' && r.feedback !== -1) continue;
      if (f === 'none' && r.feedback != null) continue;
      const tr = el('tr');
      tr.dataset.id = r.id;
      // ticked rows go into a workpaper together
      const pick = el('td');
      const box = el('input');
      box.type = 'checkbox';
      box.checked = ticked.has(r.id);
      box.setAttribute('aria-label', 'Pick answer ' + r.id + ' for a workpaper');
      box.addEventListener('change', () => { if (box.checked) ticked.add(r.id); else ticked.delete(r.id); tickedChanged(); });
      pick.appendChild(box);
      tr.appendChild(pick);
      const fb = r.feedback === 1 ? '✓ right' : r.feedback === -1 ? '✗ wrong' : '';
      tr.appendChild(el('td', null, String(r.id)));
      // the date and the time each whole, on one line or two
      const when = el('td');
      when.appendChild(el('span', 'nowrap', r.time.slice(0, 10)));
      when.appendChild(document.createTextNode(' '));
      when.appendChild(el('span', 'nowrap', r.time.slice(11, 19)));
      tr.appendChild(when);
      for (const v of [r.question, r.cancelled ? r.answer + ' (stopped)' : r.answer]) tr.appendChild(el('td', null, String(v)));
      // the label the answer was shown with, so a low-confidence answer never looks supported here
      const support = (r.shown && r.shown.support) || r.support;
      const shownAs = r.cancelled ? 'stopped' : r.not_found ? 'not found' : support === 'strong' ? 'supported' : support === 'weak' ? 'low confidence' : '';
      tr.appendChild(el('td', 'label-' + (shownAs.replace(' ', '-') || 'none'), shownAs));
      // the cited page: one click reopens the answer with its page and boxes
      const cited = el('td');
      if (r.citations && r.citations.length) {
        const b = el('button', 'link');
        b.appendChild(idNode(r.citations[0]));
        if (r.cited_shown) b.appendChild(document.createTextNode(' · ' + r.cited_shown));
        b.setAttribute('aria-label', 'Reopen answer ' + r.id + ' at ' + r.citations[0]);
        b.addEventListener('click', () => reopen(r.id));
        cited.appendChild(b);
      }
      tr.appendChild(cited);
      // who answered, in words: the calculator (whatever answerer was chosen), the page's own
      // line, or the model
      const by = r.found_by === 'calculation' ? 'calculator' : r.model ? 'model (' + r.model.model + ')' : r.answerer === 'qwen' ? 'model' : 'quoted from the page';
      // on a team library each user's own word, by name ("✓ ana; ✗ bea: wrong year")
      const fbs = (r.feedbacks || []).filter((f) => f.user);
      const said = fbs.length > 1 ? fbs.map((f) => (f.value > 0 ? '✓ ' : '✗ ') + f.user + (f.note ? ': ' + f.note : '')).join('; ') : fb + (r.feedback_note ? ' ' + r.feedback_note : '');
      for (const v of [r.quote ? '“' + r.quote + '”' : '', by, (r.retrieve_ms + r.answer_ms).toFixed(0), said]) tr.appendChild(el('td', null, String(v)));
      // one click turns a logged question (a thumbs-down above all) into a question to label
      const lab = el('td');
      const lb = el('button', 'secondary', 'Label');
      lb.setAttribute('aria-label', 'Label question ' + r.id);
      lb.addEventListener('click', () => window.lensLabeler && window.lensLabeler.fromLog(r.id));
      lab.appendChild(lb);
      tr.appendChild(lab);
      tbody.appendChild(tr);
    }
  }
  const ticked = new Set();
  function tickedChanged() {
    for (const id of ['log-wp-html', 'log-wp-pdf']) $(id).disabled = ticked.size === 0;
    for (const f of ['html', 'pdf']) $('log-wp-' + f).textContent = 'Workpaper of ' + (ticked.size ? plural(ticked.size, 'answer') : 'ticked') + ' (' + f.toUpperCase() + ')';
  }
  for (const f of ['html', 'pdf']) {
    $('log-wp-' + f).addEventListener('click', () => {
      const ids = logRows.map((r) => r.id).filter((id) => ticked.has(id));
      if (ids.length) workpaper(ids, f, 'log-msg');
    });
  }
  // a logged answer shown again in the Ask view: answer, quote, pages read, the cited page boxed
  async function reopen(id) {
    try {
      const r = await api.call('reopen', { id });
      showAnswer(r, 'Answer #' + id + ' from the log.');
    } catch (e) { showErr($('log-msg'), e); }
  }
  $('log-filter').addEventListener('change', loadLog);
  $('log-answerer').addEventListener('change', loadLog);
  $('log-since').addEventListener('change', loadLog);

  async function exportLog() {
    const msg = $('log-msg');
    try {
      const saved = await api.saveText('lens-question-log.jsonl', logRows.map((r) => JSON.stringify(r)).join('\n') + '\n', 'application/x-ndjson');
      if (!saved) return; // the save dialog was closed
      msg.className = 'done';
      msg.textContent = 'Exported ' + plural(logRows.length, 'question') + ' to ' + saved + '.';
    } catch (e) { msg.className = 'error'; showErr(msg, e); }
  }
  $('log-export').addEventListener('click', exportLog);
  // Ctrl+E exports the Log's rows as JSONL
  document.addEventListener('keydown', (ev) => {
    if ($('view-log').hidden || !(ev.ctrlKey || ev.metaKey) || ev.altKey || ev.key.toLowerCase() !== 'e') return;
    ev.preventDefault();
    exportLog();
  });


  register('log', { load: loadLog });
})();
