(skip, maxGroups, maxFields) => {
  // Repeating rows that hold text only (a table of plain cells, a list of
  // items, cards), which rows.js, starting from controls, never meets: at
  // least three siblings of one tag and class, shown, each with text, whose
  // selector matches them all and nothing else. skip: row selectors
  // already proposed. For each: the row selector, how many, and its
  // fields: a table's columns (td:nth-child(k), named by their header), or
  // the leaf elements with text that every row has at most once.
  /* rowparts.js */
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const text = (e) => (e.innerText || '').replace(/\s+/g, ' ').trim();
  const out = [];
  const seen = new Set();
  const candidates = document.querySelectorAll('tbody, ul, ol, dl, [role=list], [role=rowgroup], [role=table], div, section, main');
  for (const p of candidates) {
    if (out.length >= maxGroups) break;
    if (!shown(p)) continue;
    const byPart = new Map();
    for (const c of p.children) {
      if (!shown(c) || !text(c)) continue;
      const k = part(c);
      if (!byPart.has(k)) byPart.set(k, []);
      byPart.get(k).push(c);
    }
    for (const [k, rows] of byPart) {
      if (rows.length < 3 || ['script', 'style', 'option', 'br', 'form', 'input', 'button', 'a'].includes(rows[0].tagName.toLowerCase())) continue;
      if (rows[0].tagName === 'TR' && rows[0].parentElement.tagName === 'THEAD') continue;
      const row = pathTo(p) + ' > ' + k;
      if (seen.has(row) || skip.includes(row) || document.querySelectorAll(row).length !== rows.length) continue;
      seen.add(row);
      const fields = rows[0].tagName === 'TR' ? columns(p, rows) : leaves(rows);
      if (!fields.length) continue;
      out.push({ row, rows: rows.length, fields: fields.slice(0, maxFields) });
      if (out.length >= maxGroups) break;
    }
  }
  return out;

  // A table's columns: the cells at position k in every row, named by the
  // header cell above them.
  function columns(body, rows) {
    const table = body.closest('table');
    const head = table && (table.querySelector('thead tr') || (table.querySelector('tr th') || {}).parentElement);
    const names = head ? [...head.children].map(text) : [];
    const width = Math.max(...rows.map((r) => r.children.length));
    const fs = [];
    for (let k = 1; k <= width; k++) {
      const cells = rows.map((r) => r.children[k - 1]).filter(Boolean);
      if (cells.length < rows.length * 2 / 3 || !cells.some((c) => text(c))) continue;
      const tag = cells[0].tagName.toLowerCase();
      if (!cells.every((c) => c.tagName.toLowerCase() === tag)) continue;
      fs.push({ inner: tag + ':nth-child(' + k + ')', name: names[k - 1] || '', sample: text(cells[0]).slice(0, 60) });
    }
    return fs;
  }
  // Elements with text of their own inside each row, by their path from the
  // row (tags and classes), found at most once in every row and in two
  // rows of three at least; a row with none is read whole (inner "").
  function leaves(rows) {
    const paths = new Map();
    for (const r of rows) {
      for (const e of r.querySelectorAll('*')) {
        if (e.children.length > 0 || !shown(e) || !text(e)) continue;
        const parts = [];
        for (let x = e; x && x !== r; x = x.parentElement) parts.unshift(part(x));
        const inner = parts.join(' > ');
        if (!paths.has(inner)) paths.set(inner, { inner, name: '', sample: text(e).slice(0, 60), n: 0 });
        paths.get(inner).n++;
      }
    }
    const fs = [...paths.values()].filter((f) => f.n >= rows.length * 2 / 3 && rows.every((r) => r.querySelectorAll(f.inner).length <= 1));
    if (!fs.length) return [{ inner: '', name: '', sample: text(rows[0]).slice(0, 60) }];
    return fs.map(({ inner, name, sample }) => ({ inner, name, sample }));
  }
}
