function () {
  // Reads an <iframe> element (this) as an entry of kind frame for the
  // recorder: its candidate locators (describe.js), each checked with
  // page.js in the document that holds it to match this element alone.
  const twPage = __PAGEJS__;
  /* describe.js */
  const el = this;
  const doc = el.ownerDocument;
  const e = twInfo(el, el.getRootNode(), el.getRootNode() !== doc, "frame", 0);
  e.cands = e.cands.filter((c) => {
    try {
      const r = twPage.call(doc, "find", { loc: { kind: c.strategy, value: c.value, src: null, flags: "" }, many: false, visibleOnly: false, frame: false });
      return r === el || (Array.isArray(r) && r.count === 1 && r[0] === el);
    } catch (err) {
      return false;
    }
  });
  return JSON.stringify(e);
}
