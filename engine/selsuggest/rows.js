(start, end) => {
  // For each element marked data-tw-suggest in [start, end): the repeating
  // row it sits in (an element with at least two siblings (three in all) of its tag and
  // class, as table rows, list items and cards are), as a CSS selector
  // that matches every row, and the element's selector inside its row.
  /* rowparts.js */
  const out = [];
  for (let n = start; n < end; n++) {
    const el = document.querySelector('[data-tw-suggest="' + n + '"]');
    let res = { n, row: '', inner: '' };
    for (let a = el && el.parentElement, child = el; a && a !== document.body; child = a, a = a.parentElement) {
      const p = a.parentElement;
      if (!p) break;
      const same = [...p.children].filter((c) => part(c) === part(a));
      if (same.length < 3 || a.tagName === 'FORM' || a.tagName === 'TBODY') continue;
      const rowSel = pathTo(p) + ' > ' + part(a);
      if (document.querySelectorAll(rowSel).length !== same.length) break;
      // el's selector inside the row: tags and classes from the row down
      const parts = [];
      for (let x = el; x && x !== a; x = x.parentElement) parts.unshift(part(x));
      const inner = parts.join(' > ');
      const ok = same.every((r) => r.querySelectorAll(inner).length <= 1);
      res = { n, row: rowSel, inner: ok ? inner : '', rows: same.length };
      break;
    }
    out.push(res);
  }
  return out;
}
