function (n) {
  // Reads the one element marked data-tw-suggest=N (open shadow roots
  // included) as collect.js reads each element (twInfo of describe.js,
  // spliced in below), for engine/repair's proposals. An element that is
  // neither a field, a button nor a link (a cell, a heading) reads as kind
  // "text": its text is a locator worth trying.
  /* describe.js */
  const find = (root, inShadow) => {
    const el = root.querySelector(`[data-tw-suggest="${n}"]`);
    if (el) return { el, root, inShadow };
    for (const host of root.querySelectorAll('*')) {
      if (!host.shadowRoot) continue;
      const got = find(host.shadowRoot, true);
      if (got) return got;
    }
    return null;
  };
  const got = find(document, false);
  if (!got) return null;
  return twInfo(got.el, got.root, got.inShadow, twKindOf(got.el) || 'text', n);
}
