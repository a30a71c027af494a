function () {
  // Removes the data-tw-suggest marks collect.js set, open shadow roots
  // included, from the document collect.js read (see there).
  const doc = this && this.nodeType === 1 ? this.contentDocument : document;
  const walk = (root) => {
    root.querySelectorAll('[data-tw-suggest]').forEach((e) => e.removeAttribute('data-tw-suggest'));
    for (const host of root.querySelectorAll('*')) {
      if (host.shadowRoot) walk(host.shadowRoot);
    }
  };
  if (doc) walk(doc);
}
