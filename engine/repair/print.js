function (op, arg) {
  // print.js: how engine/repair reads an element's fingerprint (op
  // "print", run on the element) and the elements of the page that could
  // be a broken target's (op "scan", given its last fingerprint; "mark"
  // marks the i-th of them for suggest's locator check, "unmark" takes the
  // mark off). Both read alike, so what is compared was read the same way.
  // It never reads a field's value: only what a person reads beside it.
  /* describe.js */
  const MARK = 'data-tw-suggest';
  const clip = (s, n) => { s = twNorm(s); return s.length > n ? s.slice(0, n) : s; };
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const rootOf = (el) => (el.getRootNode ? el.getRootNode() : el.ownerDocument);
  const isField = (el) => ['input', 'select', 'textarea'].includes(el.tagName.toLowerCase()) || el.isContentEditable;
  const hrefPath = (el) => {
    const h = el.getAttribute('href') || '';
    if (!h || h.startsWith('javascript:') || h.startsWith('#')) return '';
    try {
      const u = new URL(h, el.ownerDocument.baseURI);
      return clip((u.origin === location.origin ? '' : u.host) + u.pathname, 100);
    } catch (e) { return ''; }
  };
  const LANDMARK = { main: 'main', nav: 'nav', form: 'form', dialog: 'dialog', section: 'section', aside: 'aside', header: 'header', footer: 'footer' };
  const ROLE_MARK = { main: 'main', navigation: 'nav', form: 'form', dialog: 'dialog', alertdialog: 'dialog', region: 'section', search: 'form', complementary: 'aside' };
  const H = 'h1,h2,h3,h4,h5,h6,[role=heading]';
  // The landmark's own name: its label, else its first heading.
  const markName = (m) => {
    const l = m.getAttribute('aria-label');
    if (l) return clip(l, 60);
    const by = m.getAttribute('aria-labelledby');
    const r = rootOf(m);
    const n = by && r.getElementById ? r.getElementById(by.split(/\s+/)[0]) : null;
    if (n) return clip(n.textContent, 60);
    const h = m.querySelector(H);
    return h ? clip(h.textContent, 60) : '';
  };
  const landmarkOf = (el) => {
    for (let m = up(el), i = 0; m && i < 40; m = up(m), i++) {
      const kind = ROLE_MARK[(m.getAttribute('role') || '').split(/\s+/)[0]] || LANDMARK[m.tagName.toLowerCase()];
      if (kind) return (kind + ' ' + markName(m)).trim();
    }
    return '';
  };
  // The nearest heading before el in document order (a bounded walk).
  const headingOf = (el) => {
    let steps = 0;
    for (let n = el; n && steps < 300; n = up(n), steps++) {
      for (let s = n.previousElementSibling; s && steps < 300; s = s.previousElementSibling, steps++) {
        if (s.matches(H)) return clip(s.textContent, 60);
        const inner = s.querySelectorAll(H);
        if (inner.length) return clip(inner[inner.length - 1].textContent, 60);
      }
      const p = up(n);
      if (p && p.matches(H)) return clip(p.textContent, 60);
    }
    return '';
  };
  const posOf = (el) => {
    const p = el.parentElement;
    if (!p) return '';
    const like = Array.from(p.children).filter((c) => c.tagName === el.tagName);
    return (like.indexOf(el) + 1) + '/' + like.length;
  };
  // An element's own data-* attributes (data-action=export), not the
  // test ids (testid), nor those a framework generates (Vue's scoped
  // data-v-…, React's data-reactid) or marks we set: at most 6.
  const OWN_DATA = /^data-(?!v-|reactid|react-|tw-|testid$|test$|cy$|qa$)[a-z][a-z0-9-]*$/;
  const dataOf = (el) => Array.from(el.attributes)
    .filter((a) => OWN_DATA.test(a.name) && a.value && a.value.length <= 40)
    .slice(0, 6).map((a) => a.name.slice(5) + '=' + a.value);
  // The class names that name el alone in its document (or shadow root),
  // not a state (active, is-open), nor one with a digit (a utility such as
  // mb-3, or generated: css-1q2w, sc-a81f): at most 8. A class another
  // element shares (btn-danger) says nothing of which one it was.
  const STATE = /^(active|selected|current|open|opened|closed|disabled|enabled|hidden|show|shown|visible|focus|focused|hover|checked|expanded|collapsed|loading|loaded|error|valid|invalid|(is|has)-.*)$/;
  const classesOf = (el) => Array.from(el.classList)
    .filter((c) => c.length <= 40 && !STATE.test(c) && !/\d/.test(c) &&
      rootOf(el).querySelectorAll('.' + CSS.escape(c)).length === 1)
    .slice(0, 8);
  const shapeOf = (el) => el.tagName.toLowerCase() + '>' + Array.from(el.children).slice(0, 12).map((c) => c.tagName.toLowerCase()).join(',');
  const print = (el, many) => {
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') || '').toLowerCase();
    const field = isField(el);
    // A button's value is its label, not something typed.
    const btn = tag === 'input' && ['submit', 'button', 'reset'].includes(type) ? el.value : '';
    const label = field && !btn ? twLabelOf(el, rootOf(el)) : twNorm(el.getAttribute('aria-label'));
    const text = field && !btn ? '' : clip(btn || el.innerText || el.textContent, 80);
    return {
      tag, type, role: twRoleOf(el),
      id: clip(el.id, 80), name: clip(el.getAttribute('name'), 80),
      testid: clip(el.getAttribute('data-testid') || el.getAttribute('data-test') || el.getAttribute('data-cy') || el.getAttribute('data-qa'), 80),
      href: tag === 'a' ? hrefPath(el) : '',
      placeholder: clip(el.getAttribute('placeholder'), 80),
      label: clip(label, 80),
      acc: clip(label || text || el.getAttribute('title') || el.getAttribute('placeholder'), 80),
      text,
      landmark: landmarkOf(el), heading: headingOf(el), pos: posOf(el),
      row: many ? shapeOf(el) : '',
      data: dataOf(el), classes: classesOf(el),
    };
  };
  if (op === 'print') return print(this, arg.many);
  // The elements that could be the one fp printed: its tag, its role, and
  // every field, button and link, in document order, open shadow roots
  // included, at most max.
  const candidates = (fp, max) => {
    const sel = ['input:not([type=hidden]),select,textarea,button,a[href],[role=button],[role=link],[role=textbox],[role=checkbox]'];
    if (/^[a-z][a-z0-9-]*$/.test(fp.tag || '')) sel.push(fp.tag);
    if (/^[a-z]+$/.test(fp.role || '')) sel.push(`[role=${fp.role}]`);
    const q = sel.join(',');
    const out = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll(q)) {
        if (out.length >= max) return;
        out.push(el);
      }
      for (const host of root.querySelectorAll('*')) {
        if (host.shadowRoot && out.length < max) walk(host.shadowRoot);
      }
    };
    walk(document);
    return out;
  };
  if (op === 'scan') return candidates(arg.print, arg.max).map((el) => print(el, arg.many));
  if (op === 'mark') {
    const el = candidates(arg.print, arg.max)[arg.i];
    if (!el) return false;
    el.setAttribute(MARK, String(arg.n));
    return true;
  }
  if (op === 'unmark') {
    const walk = (root) => {
      root.querySelectorAll(`[${MARK}]`).forEach((e) => e.removeAttribute(MARK));
      for (const host of root.querySelectorAll('*')) if (host.shadowRoot) walk(host.shadowRoot);
    };
    walk(document);
    return true;
  }
  throw new Error('print.js: unknown op ' + op);
}
