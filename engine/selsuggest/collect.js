function (start) {
  // Collects a document's fields, buttons, links and iframes, open shadow
  // roots included, with what a stable locator can be built from (twInfo
  // of describe.js, spliced in below). Each element is marked with
  // data-tw-suggest=N (N counts on from start, so marks stay unique across
  // frames) and the resolver's match is checked to be the same element.
  // Run on the page's window, the document is the page's; run on a
  // same-process <iframe> element, it is the frame's.
  const doc = this && this.nodeType === 1 ? this.contentDocument : document;
  if (!doc) return [];
  /* describe.js */
  const out = [];
  const seen = new Set();
  const walk = (root, inShadow) => {
    const els = root.querySelectorAll('input:not([type=hidden]),select,textarea,button,a[href],[role=button],[role=link],[role=textbox],[role=combobox],[role=checkbox],[role=switch],iframe,frame');
    for (const el of els) {
      if (seen.has(el) || !twVisible(el)) continue;
      seen.add(el);
      const kind = twKindOf(el);
      if (!kind) continue;
      const n = start + out.length;
      el.setAttribute('data-tw-suggest', String(n));
      out.push(twInfo(el, root, inShadow, kind, n));
    }
    for (const host of root.querySelectorAll('*')) {
      if (host.shadowRoot) walk(host.shadowRoot, true);
    }
  };
  walk(doc, false);
  return out;
}
