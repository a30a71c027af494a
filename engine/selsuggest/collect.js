function (start) {
  // Collects a document's fields, buttons, links and iframes, open shadow
  // roots included, with what a stable locator can be built from. Each
  // element is marked with data-tw-suggest=N (N counts on from start, so
  // marks stay unique across frames) and the resolver's match is checked to
  // be the same element. Run on the page's window, the document is the
  // page's; run on a same-process <iframe> element, it is the frame's.
  const doc = this && this.nodeType === 1 ? this.contentDocument : document;
  if (!doc) return [];
  const out = [];
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const st = el.ownerDocument.defaultView.getComputedStyle(el);
    return r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none';
  };
  const labelOf = (el, root) => {
    if (el.getAttribute('aria-label')) return norm(el.getAttribute('aria-label'));
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = by.split(/\s+/).map((id) => root.getElementById ? root.getElementById(id) : doc.getElementById(id)).filter(Boolean).map((n) => norm(n.textContent)).join(' ');
      if (t) return t;
    }
    if (el.id) {
      const l = (root.querySelector ? root : doc).querySelector(`label[for="${CSS.escape(el.id)}"]`);
      if (l) return norm(l.textContent);
    }
    const wrap = el.closest('label');
    if (wrap) {
      const clone = wrap.cloneNode(true);
      clone.querySelectorAll('input,select,textarea').forEach((n) => n.remove());
      return norm(clone.textContent);
    }
    return '';
  };
  const roleOf = (el) => {
    const r = el.getAttribute('role');
    if (r) return r.split(/\s+/)[0];
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'a') return 'link';
    if (tag === 'button') return 'button';
    if (tag === 'select') return el.multiple ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'input') {
      if (['submit', 'button', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox') return 'checkbox';
      if (type === 'radio') return 'radio';
      if (type === 'search') return 'searchbox';
      if (['number'].includes(type)) return 'spinbutton';
      return 'textbox';
    }
    return '';
  };
  const kindOf = (el) => {
    const tag = el.tagName.toLowerCase();
    if (tag === 'iframe' || tag === 'frame') return 'frame';
    const role = roleOf(el);
    if (role === 'link') return 'link';
    if (role === 'button') return 'button';
    if (['input', 'select', 'textarea'].includes(tag) || ['textbox', 'combobox', 'checkbox', 'radio', 'searchbox', 'listbox', 'spinbutton', 'switch'].includes(role)) return 'field';
    return '';
  };
  const seen = new Set();
  const walk = (root, inShadow) => {
    const els = root.querySelectorAll('input:not([type=hidden]),select,textarea,button,a[href],[role=button],[role=link],[role=textbox],[role=combobox],[role=checkbox],[role=switch],iframe,frame');
    for (const el of els) {
      if (seen.has(el) || !visible(el)) continue;
      seen.add(el);
      const kind = kindOf(el);
      if (!kind) continue;
      const n = start + out.length;
      el.setAttribute('data-tw-suggest', String(n));
      const tag = el.tagName.toLowerCase();
      const label = kind === 'field' ? labelOf(el, root) : kind === 'frame' ? norm(el.getAttribute('title') || el.getAttribute('aria-label')) : norm(el.getAttribute('aria-label'));
      const text = kind === 'field' || kind === 'frame' ? '' : norm(el.innerText || el.textContent || el.value);
      out.push({
        n, kind, tag, inShadow,
        type: (el.getAttribute('type') || '').toLowerCase(),
        id: el.id || '',
        idCSS: el.id ? '#' + CSS.escape(el.id) : '',
        name: el.getAttribute('name') || '',
        testid: el.getAttribute('data-testid') || el.getAttribute('data-test') || el.getAttribute('data-qa') || '',
        testattr: el.hasAttribute('data-testid') ? 'data-testid' : el.hasAttribute('data-test') ? 'data-test' : el.hasAttribute('data-qa') ? 'data-qa' : '',
        label, text,
        placeholder: el.getAttribute('placeholder') || '',
        role: kind === 'frame' ? '' : roleOf(el),
        accName: label || text || norm(el.getAttribute('title')) || norm(el.getAttribute('placeholder')) || norm(el.value),
        href: tag === 'a' ? el.getAttribute('href') : '',
        src: kind === 'frame' ? el.getAttribute('src') || '' : '',
      });
    }
    for (const host of root.querySelectorAll('*')) {
      if (host.shadowRoot) walk(host.shadowRoot, true);
    }
  };
  walk(doc, false);
  return out;
}
