// The layout probe: words broken in two across lines in a part of the page. One measurement
// for the browser tests (harness.mjs calls window.lensProbe.brokenWords) and the desktop
// window's test (Ctrl+Alt+Shift+L reports the open view to the shell, which prints it only when
// started with LENS_LAYOUT_PROBE; otherwise the report goes nowhere).
(function () {
  // Each word of the cells, buttons, list items, message lines and summaries under `root`
  // (text between spaces; a line may end after a hyphen that follows a letter, "dated-", or at
  // an id's <wbr> marks, never inside a number or a date, "2026-/12-03") is measured with a
  // Range: a word whose glyph boxes sit on two lines is broken ("Remov/e", "FY201/7").
  function brokenWords(root) {
    const out = [];
    const els = document.querySelectorAll(`${root} td, ${root} th, ${root} button, ${root} li, ${root} p, ${root} summary, header button`);
    for (const e of els) {
      if (e.offsetParent === null || e.closest('[hidden]')) continue;
      const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        // a text node inside a nested element of the same kind is checked there
        if (n.parentElement !== e && n.parentElement.closest('td, th, button, li, p, summary') !== e) continue;
        // the service's own words behind Details (paths, codes) wrap anywhere by design
        if (n.parentElement.closest('details') && !n.parentElement.closest('summary')) continue;
        const text = n.textContent;
        const re = /(?:[^\s\-–—]|(?<![A-Za-z])[\-–—])+(?:(?<=[A-Za-z])[\-–—])?/g;
        for (let m = re.exec(text); m; m = re.exec(text)) {
          if (m[0].length < 2) continue;
          const r = document.createRange();
          r.setStart(n, m.index);
          r.setEnd(n, m.index + m[0].length);
          const tops = new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)));
          if (tops.size > 1) out.push(`${m[0]} (${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}: "${e.textContent.trim().slice(0, 40)}")`);
        }
      }
    }
    return out;
  }
  window.lensProbe = { brokenWords };
  document.addEventListener('keydown', (ev) => {
    if (!(ev.ctrlKey && ev.altKey && ev.shiftKey && ev.key.toLowerCase() === 'l')) return;
    ev.preventDefault();
    const open = [...document.querySelectorAll('.tab')].find((b) => b.getAttribute('aria-pressed') === 'true');
    const view = open ? open.dataset.view : '';
    // what a user sees, for the desktop window's tests: the question box, the answer, its label,
    // the page viewer's title, the Library's companies, how the question was read, and where
    // the Log's first reopen button, the answer, the page and the answer's buttons are (to
    // click them)
    const text = (id) => { const e = document.getElementById(id); return e && !e.closest('[hidden]') ? e.textContent.trim() : ''; };
    const rect = (sel) => { const e = document.querySelector(sel); if (!e || e.offsetParent === null) return null; const r = e.getBoundingClientRect(); return { x: Math.round(r.x + r.width / 2), y: Math.round(r.y + Math.min(r.height / 2, 40)) }; };
    const report = {
      view,
      width: window.innerWidth,
      broken: brokenWords('#view-' + view),
      sideways: document.documentElement.scrollWidth - window.innerWidth,
      question: document.getElementById('q').value,
      answer: text('answer-text'),
      support: text('support'),
      viewer: text('viewer-title'),
      companies: [...document.querySelectorAll('#docs tbody td:nth-child(3)')].map((td) => td.textContent.trim()),
      reading: text('reading'),
      at: {
        reopen: rect('#log tbody button[aria-label^="Reopen answer"]'), answer: rect('#answer-text'), page: rect('#viewer-scroll'),
        follow_up: rect('#follow-up'), export_xlsx: rect('#x-xlsx'), tables_xlsx: rect('#v-tables'),
      },
    };
    window.lensApi.call('layout_report', report).catch(() => {});
  });
})();
