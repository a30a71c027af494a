  // describe.js: what a stable locator of an element can be built from,
  // and the candidate locators themselves, stable ones first. Shared by
  // `selectors suggest` (collect.js) and `record` (engine/record's
  // capture.js): both read an element the same way. It declares
  // functions only; the script around it calls them.
  const twNorm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const twVisible = (el) => {
    const r = el.getBoundingClientRect();
    const st = el.ownerDocument.defaultView.getComputedStyle(el);
    return r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none';
  };
  const twLabelOf = (el, root) => {
    const doc = el.ownerDocument;
    if (el.getAttribute('aria-label')) return twNorm(el.getAttribute('aria-label'));
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = by.split(/\s+/).map((id) => root.getElementById ? root.getElementById(id) : doc.getElementById(id)).filter(Boolean).map((n) => twNorm(n.textContent)).join(' ');
      if (t) return t;
    }
    if (el.id) {
      const l = (root.querySelector ? root : doc).querySelector(`label[for="${CSS.escape(el.id)}"]`);
      if (l) return twNorm(l.textContent);
    }
    const wrap = el.closest('label');
    if (wrap) {
      const clone = wrap.cloneNode(true);
      clone.querySelectorAll('input,select,textarea').forEach((n) => n.remove());
      return twNorm(clone.textContent);
    }
    return '';
  };
  const twRoleOf = (el) => {
    const r = el.getAttribute('role');
    if (r) return r.split(/\s+/)[0];
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'a') return el.hasAttribute('href') ? 'link' : '';
    if (tag === 'button') return 'button';
    if (tag === 'select') return el.multiple ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'input') {
      if (['submit', 'button', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox') return 'checkbox';
      if (type === 'radio') return 'radio';
      if (type === 'search') return 'searchbox';
      if (['number'].includes(type)) return 'spinbutton';
      if (type === 'file' || type === 'hidden') return '';
      return 'textbox';
    }
    return '';
  };
  const twKindOf = (el) => {
    const tag = el.tagName.toLowerCase();
    if (tag === 'iframe' || tag === 'frame') return 'frame';
    const role = twRoleOf(el);
    if (role === 'link') return 'link';
    if (role === 'button') return 'button';
    if (['input', 'select', 'textarea'].includes(tag) || ['textbox', 'combobox', 'checkbox', 'radio', 'searchbox', 'listbox', 'spinbutton', 'switch'].includes(role)) return 'field';
    return '';
  };
  // twInfo reads el (of kind, found under root: a document or an open
  // shadow root) as the Go side's selsuggest.Element.
  const twInfo = (el, root, inShadow, kind, n) => {
    const tag = el.tagName.toLowerCase();
    const label = kind === 'field' ? twLabelOf(el, root) : kind === 'frame' ? twNorm(el.getAttribute('title') || el.getAttribute('aria-label')) : twNorm(el.getAttribute('aria-label'));
    const text = kind === 'field' || kind === 'frame' ? '' : twNorm(el.innerText || el.textContent || el.value);
    const e = {
      n, kind, tag, inShadow,
      type: (el.getAttribute('type') || '').toLowerCase(),
      id: el.id || '',
      idCSS: el.id ? '#' + CSS.escape(el.id) : '',
      name: el.getAttribute('name') || '',
      testid: el.getAttribute('data-testid') || el.getAttribute('data-test') || el.getAttribute('data-qa') || '',
      testattr: el.hasAttribute('data-testid') ? 'data-testid' : el.hasAttribute('data-test') ? 'data-test' : el.hasAttribute('data-qa') ? 'data-qa' : '',
      label, text,
      placeholder: el.getAttribute('placeholder') || '',
      role: kind === 'frame' ? '' : twRoleOf(el),
      accName: label || text || twNorm(el.getAttribute('title')) || twNorm(el.getAttribute('placeholder')) || (kind === 'field' ? '' : twNorm(el.value)),
      href: tag === 'a' ? el.getAttribute('href') || '' : '',
      src: kind === 'frame' ? el.getAttribute('src') || '' : '',
    };
    e.cands = twCandidates(e);
    return e;
  };
  // Ids and names a framework makes up per build or per session.
  const twUnstable = /\d{3,}|[0-9a-f]{8,}|^(ember|react|ng|mui|css|jsx|radix|headlessui)[-_:]|:r[0-9a-z]+:/;
  // twCandidates lists the locators worth trying for e (twInfo), the
  // stable ones first. Text that looks like /regex/ would be read as one,
  // so it is not offered.
  const twCandidates = (e) => {
    const out = [];
    const plain = (s) => s !== '' && !(s.length > 1 && s[0] === '/' && s[s.length - 1] === '/');
    const q = (s) => JSON.stringify(s);
    const label = plain(e.label) ? e.label : '', text = plain(e.text) ? e.text : '', accName = plain(e.accName) ? e.accName : '';
    const css = (v) => out.push({ strategy: 'css', value: v });
    if (e.id && !twUnstable.test(e.id)) css(e.idCSS);
    if (e.testid) css(`[${e.testattr}=${q(e.testid)}]`);
    if (e.kind === 'link' && e.href && !e.href.startsWith('javascript:') && !e.href.startsWith('#') && e.href.length <= 100) css(`a[href=${q(e.href)}]`);
    if (e.name && e.kind !== 'link') css(`${e.tag}[name=${q(e.name)}]`);
    if (e.kind === 'frame') {
      // An iframe has no role or text worth a fallback: its title, and a
      // relative src (an absolute one names a host and port that change).
      if (label) css(`${e.tag}[title=${q(label)}]`);
      if (e.src && !e.src.includes(':') && !e.src.startsWith('//') && e.src.length <= 100) css(`${e.tag}[src=${q(e.src)}]`);
      return out;
    }
    if (e.kind === 'field' && label) out.push({ strategy: 'label', value: label });
    if (e.role && accName && accName.length <= 80) out.push({ strategy: 'role', value: e.role, name: accName });
    if (e.kind !== 'field' && text && text.length <= 80) out.push({ strategy: 'text', value: text });
    return out;
  };
