(() => {
  // The recorder's capture script. It runs in every frame of a recorded
  // page, in an isolated world of its own (the page's scripts never see
  // it), from before the page's own scripts. It reads what a person does
  // (clicks, typing, choices, keys, files, form submissions) at the
  // instant they do it, while the element is still there, and sends each
  // action through the binding to the Go side: the element as describe.js
  // reads it, its candidate locators verified right then with the
  // resolver's own page side (page.js "find": exactly this element, and
  // nothing else), and the name of an existing selector-map target that
  // already resolves to it.
  //
  // In the top frame it adds the recorder's toolbar (a closed shadow root
  // on an element outside <body>), where the person marks what the tool
  // returns: a value, a repeating row and the fields clicked in it, the
  // next-page control; and Finish.
  const W = window;
  if (W.__twrec) return;
  const BINDING = "__BINDING__";
  const KNOWN = __KNOWN__; // [{name, locs: [page.js locators]}]: existing targets, top level
  const twPage = __PAGEJS__;
  /* describe.js */

  const top = W === W.top;
  let sent = 0; // messages handed to the binding (flush tells the Go side how many to wait for)
  const send = (m) => {
    m.t = Date.now();
    try { W[BINDING](JSON.stringify(m)); sent++; } catch (e) { /* the binding is gone: the recording ended */ }
  };
  const state = { keyAt: 0, mode: "", spec: { rows: null, next: null }, host: null, ui: null };

  // ---- locators, checked in the page with page.js ----
  const jsLoc = (c) => ({ kind: c.strategy, value: c.value, src: null, flags: "" });
  const roleNodes = (role, name) => {
    const out = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll("*")) {
        if (twRoleOf(el) === role) {
          const kind = twKindOf(el) || "button";
          if (twInfo(el, el.getRootNode(), false, kind, 0).accName === name) out.push(el);
        }
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    return out;
  };
  // one runs a locator under scope (a document or an element) and returns
  // its one match, or null when it matches none or several.
  const one = (scope, c, visibleOnly) => {
    try {
      const nodes = c.strategy === "role" ? roleNodes(c.value, c.name) : [];
      const loc = c.strategy === "role" ? { kind: "nodes", value: "" } : c.kind ? c : jsLoc(c);
      const r = twPage.call(scope, "find", { loc, many: false, visibleOnly: !!visibleOnly, frame: false }, ...nodes);
      if (!r) return null;
      if (Array.isArray(r)) return r.count === 1 ? r[0] : null;
      return r;
    } catch (e) {
      return null;
    }
  };
  const all = (scope, c) => {
    try {
      const r = twPage.call(scope, "find", { loc: jsLoc(c), many: true, visibleOnly: false, frame: false });
      return r ? Array.from(r) : [];
    } catch (e) {
      return [];
    }
  };
  // resolves: the first locator of locs that matches anything wins, as the
  // resolver does; does it match el alone?
  const resolvesTo = (locs, el) => {
    for (const l of locs) {
      let r = null;
      try {
        const nodes = l.kind === "role" ? roleNodes(l.value, l.name) : [];
        const loc = l.kind === "role" ? { kind: "nodes", value: "" } : l;
        r = twPage.call(document, "find", { loc, many: true, visibleOnly: false, frame: false }, ...nodes);
      } catch (e) { return false; }
      if (r && r.length) return r.length === 1 && r[0] === el;
    }
    return false;
  };
  const verified = (el, cands) => cands.filter((c) => one(document, c) === el);

  // A stable CSS path: the element's id or test id, else a path from the
  // nearest ancestor that has one (or the body), each step its tag, a
  // class that tells it from its siblings, or its position.
  const stableClass = (el) => Array.from(el.classList).find((c) => !twUnstable.test(c) && /^[A-Za-z][\w-]*$/.test(c));
  const selfCSS = (el) => {
    if (el.id && !twUnstable.test(el.id)) return "#" + CSS.escape(el.id);
    const t = el.getAttribute("data-testid");
    if (t) return `[data-testid=${JSON.stringify(t)}]`;
    return "";
  };
  const stepCSS = (el) => {
    const tag = el.tagName.toLowerCase();
    const p = el.parentElement;
    if (!p) return tag;
    const cls = stableClass(el);
    if (cls && p.querySelectorAll(`:scope > ${tag}.${CSS.escape(cls)}`).length === 1) return `${tag}.${cls}`;
    const same = Array.from(p.children).filter((c) => c.tagName === el.tagName);
    if (same.length === 1) return tag;
    return `${tag}:nth-of-type(${same.indexOf(el) + 1})`;
  };
  const pathCSS = (el, stop) => {
    const parts = [];
    for (let n = el; n && n !== stop && n.nodeType === 1; n = n.parentElement) {
      const s = selfCSS(n);
      if (s) { parts.unshift(s); return parts.join(" > "); }
      if (n.tagName === "BODY" || n.tagName === "HTML") break;
      parts.unshift(stepCSS(n));
    }
    return parts.join(" > ");
  };
  // shortCSS tries the element's own class under its id'd ancestor before
  // the whole path: "#results .total" reads better than a chain of steps.
  const shortCSS = (el) => {
    const own = selfCSS(el);
    if (own) return own;
    const cls = stableClass(el);
    const tag = el.tagName.toLowerCase();
    for (let a = el.parentElement; a; a = a.parentElement) {
      const s = selfCSS(a);
      if (!s) continue;
      for (const c of cls ? [`${s} ${tag}.${cls}`, `${s} .${cls}`] : [`${s} ${tag}`]) {
        if (one(document, { strategy: "css", value: c }) === el) return c;
      }
      break;
    }
    return pathCSS(el, null);
  };

  // ---- secret fields ----
  // A field that ever was a password field stays one, for what is read and
  // sent from it: a page's "show password" turns it into a text field. So
  // does a field drawn as dots (-webkit-text-security: a PIN in a text
  // field), one for a one-time code, one the engine marked as typed a
  // secret into (selector.SecretMark) and one page_fill typed a secret into.
  const MARK = "data-toolwright-secret";
  const secretEls = new WeakSet();
  const secretField = (el) => {
    if (!el || el.nodeType !== 1) return false;
    if (secretEls.has(el)) return true;
    if (el.tagName !== "INPUT" && el.tagName !== "TEXTAREA") return false;
    const dots = getComputedStyle(el).webkitTextSecurity;
    const s = el.type === "password" || el.hasAttribute(MARK) || /\bone-time-code\b/.test(el.getAttribute("autocomplete") || "") || (!!dots && dots !== "none");
    if (s) secretEls.add(el);
    return s;
  };
  try {
    new MutationObserver((recs) => {
      for (const m of recs) if (m.oldValue && m.oldValue.toLowerCase() === "password") secretEls.add(m.target);
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ["type"], attributeOldValue: true });
  } catch (e) { /* no document yet: the snapshot and the typing still look */ }
  W.addEventListener("focusin", (ev) => secretField(targetOf(ev)), true);

  // ---- elements ----
  const actionable = "a[href],button,input,select,textarea,summary,label,[role=button],[role=link],[role=tab],[role=menuitem],[role=option],[role=checkbox],[role=switch],[role=radio],[onclick]";
  const targetOf = (ev) => {
    const p = ev.composedPath ? ev.composedPath() : [];
    const t = p.length && p[0].nodeType === 1 ? p[0] : ev.target;
    return t && t.nodeType === 1 ? t : t && t.parentElement;
  };
  const inShadow = (el) => el.getRootNode() !== el.ownerDocument;
  const describeEl = (el, extract) => {
    const kind = twKindOf(el);
    const e = twInfo(el, el.getRootNode(), inShadow(el), kind, 0);
    let cands = extract ? e.cands.filter((c) => c.strategy === "css") : e.cands;
    cands = verified(el, cands);
    if (!cands.some((c) => c.strategy === "css" || c.strategy === "label")) {
      const c = { strategy: "css", value: shortCSS(el) };
      if (c.value && one(document, c) === el) cands.unshift(c);
    }
    e.cands = cands;
    e.password = secretField(el);
    e.maxLength = el.maxLength > 0 ? el.maxLength : 0;
    const known = KNOWN.find((k) => resolvesTo(k.locs, el));
    e.reuse = known ? known.name : "";
    return e;
  };
  const read = (el) => twNorm(el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" ? (secretField(el) ? "" : el.value) : el.innerText);

  // ---- rows, their fields, the next-page control ----
  const rowOf = (el) => {
    const r = el.closest("tr, li, [role=row]");
    if (r) return r;
    for (let n = el; n && n.parentElement && n.tagName !== "BODY"; n = n.parentElement) {
      const like = Array.from(n.parentElement.children).filter((c) => c.tagName === n.tagName && c.className === n.className);
      if (like.length >= 2) return n;
    }
    return null;
  };
  const rowsSpec = (row) => {
    const tag = row.tagName.toLowerCase();
    const cls = stableClass(row);
    const sel = cls && Array.from(row.parentElement.children).filter((c) => c.tagName === row.tagName).every((c) => c.classList.contains(cls)) ? `${tag}.${cls}` : tag;
    const parent = pathCSS(row.parentElement, null);
    const loc = { strategy: "css", value: parent ? `${parent} > ${sel}` : sel };
    const rows = all(document, loc);
    if (!rows.includes(row)) return null;
    return { locs: [loc], count: rows.length, fields: [] };
  };
  const headerOf = (row, cell) => {
    if (cell.tagName !== "TD" && cell.tagName !== "TH") return "";
    const table = row.closest("table");
    const head = table && (table.tHead ? table.tHead.rows[0] : null);
    if (!head) return "";
    const h = head.cells[cell.cellIndex];
    return h ? twNorm(h.innerText) : "";
  };
  const slugOf = (s) => (s || "").toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 30).replace(/_+$/, "");
  const fieldSpec = (rows, row, el) => {
    const cell = row.tagName === "TR" ? el.closest("td, th") || el : el;
    const tries = [];
    const cls = stableClass(cell);
    const tag = cell.tagName.toLowerCase();
    if (cls) tries.push(`${tag}.${cls}`, `.${cls}`);
    if (cell.parentElement === row) {
      const same = Array.from(row.children).filter((c) => c.tagName === cell.tagName);
      tries.push(same.length === 1 ? tag : `${tag}:nth-of-type(${same.indexOf(cell) + 1})`);
    }
    tries.push(pathCSS(cell, row));
    const rowEls = all(document, rows.locs[0]);
    for (const value of tries) {
      const loc = { strategy: "css", value };
      if (one(row, loc) !== cell) continue;
      if (!rowEls.every((r) => all(r, loc).length <= 1)) continue;
      let name = slugOf(headerOf(row, cell)) || slugOf(cls) || "field";
      if (/^[0-9]/.test(name)) name = "f_" + name;
      return { name, locs: [loc], value: read(cell) };
    }
    return null;
  };
  const readRows = () => {
    const r = state.spec.rows;
    if (!r || !r.fields.length) return null;
    const req = {
      from: r.locs.map(jsLoc), many: true, list: true, limit: 0, attr: "text",
      fields: r.fields.map((f) => ({ name: f.name, locs: f.locs.map(jsLoc) })),
    };
    const out = String(twPage.call(document, "extract", req));
    const nl = out.indexOf("\n");
    const res = JSON.parse(out.slice(0, nl));
    const vals = JSON.parse(out.slice(nl + 1));
    const items = [];
    for (let i = 0; i < res.rows; i++) {
      const o = {};
      r.fields.forEach((f, j) => { o[f.name] = vals[i * r.fields.length + j]; });
      items.push(o);
    }
    return items;
  };
  const isNext = (el) => {
    const n = state.spec.next;
    if (!n) return false;
    const m = one(document, n.locs[0]);
    return !!m && (m === el || m.contains(el));
  };
  // findNext: the page's next-page control, enabled or not (a list on its
  // last page shows it disabled), by its rel, its name or its label.
  const NEXT = /^(next|next page|next ›|next »|›|»|>|→|older|more|load more|show more)$/i;
  const findNext = () => {
    for (const el of document.querySelectorAll("a, button, input[type=button], input[type=submit], [role=button], [role=link]")) {
      if (!el.getClientRects().length) continue;
      const name = twNorm(el.getAttribute("aria-label") || el.innerText || el.value || el.getAttribute("title") || "");
      if (el.getAttribute("rel") === "next" || NEXT.test(name)) return el;
    }
    return null;
  };
  // markNext makes el the next-page control → false when no locator finds
  // it alone.
  const markNext = (el) => {
    const e = describeEl(el, false);
    if (!e.cands.length) return false;
    state.spec.next = { locs: e.cands.slice(0, 1).map(jsLoc) };
    send({ k: "mark", mode: "next", el: e, spec: state.spec });
    outline();
    return true;
  };
  // outline draws what is marked: the rows' first row, its fields, the
  // next-page control (a marked element's own outline is put back when
  // the marks change).
  const outlined = new Map();
  const outline = () => {
    for (const [el, was] of outlined) el.style.outline = was;
    outlined.clear();
    const draw = (el, style) => {
      if (!el || outlined.has(el)) return;
      outlined.set(el, el.style.outline);
      el.style.outline = style;
    };
    const r = state.spec.rows;
    const first = r && all(document, r.locs[0])[0];
    if (first) {
      draw(first, "2px dashed #e53935");
      for (const f of r.fields) draw(one(first, f.locs[0]), "2px solid #e53935");
    }
    if (state.spec.next) draw(one(document, state.spec.next.locs[0]), "2px dashed #1e88e5");
  };

  // ---- the toolbar ----
  const setMode = (mode) => {
    state.mode = mode;
    if (!state.ui) return;
    const msg = {
      "": "Recording: do the action. Mark what the tool returns, then Finish.",
      value: "Click the value the tool returns.",
      rows: "Click one row of the list.",
      fields: "Click each field of the row to return; Rows done when finished.",
      next: "Click the next-page control.",
    }[mode];
    state.ui.status.textContent = msg;
    state.ui.rows.textContent = mode === "fields" ? "Rows done" : "Rows";
  };
  const toolbar = () => {
    if (!top || state.host || !document.documentElement) return;
    const host = document.createElement("toolwright-recorder");
    host.style.cssText = "all: initial; position: fixed; z-index: 2147483647; right: 12px; bottom: 12px;";
    const root = host.attachShadow({ mode: "closed" });
    root.innerHTML = `<style>
      .bar { font: 13px system-ui, sans-serif; background: #1f2430; color: #fff; border-radius: 8px; padding: 8px 10px; box-shadow: 0 2px 10px rgba(0,0,0,.35); width: 330px; }
      .status { margin: 0 0 6px; line-height: 1.3; }
      button { font: inherit; margin-right: 4px; padding: 4px 8px; border-radius: 5px; border: 0; background: #3b4354; color: #fff; cursor: pointer; }
      button.finish { background: #2e7d32; }
      .dot { display: inline-block; width: 8px; height: 8px; border-radius: 50%; background: #e53935; margin-right: 6px; }
    </style><div class="bar"><p class="status"></p><span class="dot"></span><button data-act="value">Value</button><button data-act="rows">Rows</button><button data-act="next">Next page</button><button data-act="finish" class="finish">Finish</button></div>`;
    const ui = { status: root.querySelector(".status"), rows: root.querySelector('[data-act="rows"]') };
    for (const t of ["pointerdown", "mousedown", "pointerup", "mouseup", "click"]) {
      root.addEventListener(t, (ev) => ev.stopPropagation());
    }
    root.addEventListener("click", (ev) => {
      const b = ev.target.closest && ev.target.closest("button");
      if (!b) return;
      const act = b.getAttribute("data-act");
      if (act === "finish") {
        flush();
        setMode("");
        send({ k: "finish", rows: readRows(), url: location.href });
        ui.status.textContent = "Finished: the recorder is writing and replaying the tool.";
        return;
      }
      if (act === "rows" && state.mode === "fields") return setMode("");
      setMode(state.mode === act ? "" : act);
    });
    document.documentElement.appendChild(host);
    state.host = host;
    state.ui = ui;
    setMode(state.mode);
  };
  const inToolbar = (ev) => state.host && ev.composedPath && ev.composedPath().includes(state.host);

  // ---- marks: a click in a marking mode is the person pointing, not acting ----
  // say tells the person why a click marked nothing (the mode stays).
  const say = (why) => {
    if (state.ui) state.ui.status.textContent = why + " Click another, or the mode's button to stop.";
  };
  // markRows makes row's list the marked rows (when it is not already)
  // → the rows' spec, or null when no selector finds its rows.
  const markRows = (row) => {
    const rows = state.spec.rows;
    if (rows && all(document, rows.locs[0]).includes(row)) return rows;
    const spec = rowsSpec(row);
    if (!spec) return null;
    state.spec.rows = spec;
    send({ k: "mark", mode: "rows", spec: state.spec });
    // The list's next-page control, found by the recorder when nobody
    // marked one: the draft reads every page.
    if (!state.spec.next) {
      const nx = findNext();
      if (nx) markNext(nx);
    }
    outline();
    return spec;
  };
  // markField adds el, in a row of the marked rows, as one of their
  // fields → {name, value}, or a reason it cannot be one.
  const markField = (el) => {
    const rows = state.spec.rows;
    const row = rowOf(el);
    if (!rows || !row || !all(document, rows.locs[0]).includes(row)) return { why: "That is not in a row of the marked list." };
    const f = fieldSpec(rows, row, el);
    if (!f) return { why: "No selector finds that once in every row." };
    let name = f.name, i = 2;
    while (rows.fields.some((g) => g.name === name)) name = `${f.name}_${i++}`;
    rows.fields.push({ name, locs: f.locs });
    send({ k: "mark", mode: "fields", spec: state.spec, value: f.value });
    outline();
    return { name, value: f.value };
  };
  const mark = (el) => {
    const mode = state.mode;
    if (mode === "value") {
      const e = describeEl(el, true);
      if (!e.cands.length) return say("No selector finds that element alone.");
      setMode("");
      send({ k: "mark", mode, el: e, value: read(el) });
    } else if (mode === "rows") {
      const row = rowOf(el);
      if (!row) return say("That is not in a repeating row (a table row, a list item, one of several alike).");
      state.spec.rows = null; // marking the rows again starts them over
      if (!markRows(row)) return say("No selector finds the rows of that list.");
      state.rowEl = row;
      setMode("fields");
    } else if (mode === "fields") {
      const f = markField(el);
      if (f.why) return say(f.why);
    } else if (mode === "next") {
      if (!markNext(el.closest(actionable) || el)) return say("No selector finds that control alone.");
      setMode("");
    }
  };
  for (const t of ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "dblclick", "contextmenu"]) {
    W.addEventListener(t, (ev) => {
      if (!ev.isTrusted || !top || !state.mode || inToolbar(ev)) return;
      ev.preventDefault();
      ev.stopImmediatePropagation();
      if (t === "click") mark(targetOf(ev));
    }, true);
  }

  // ---- actions ----
  const pending = new Set(); // fields typed in, not yet sent
  const flush = () => {
    for (const el of pending) {
      if (el.isConnected) send({ k: "fill", el: describeEl(el, false), value: el.value });
    }
    pending.clear();
  };
  const textLike = (el) => (el.tagName === "INPUT" && !["checkbox", "radio", "file", "submit", "button", "reset", "image", "range", "color"].includes(el.type)) || el.tagName === "TEXTAREA";
  W.addEventListener("input", (ev) => {
    const el = targetOf(ev);
    if (ev.isTrusted && el && textLike(el)) {
      secretField(el);
      pending.add(el);
    }
  }, true);
  W.addEventListener("change", (ev) => {
    const el = targetOf(ev);
    if (!el || inToolbar(ev)) return;
    if (textLike(el)) {
      if (pending.has(el)) {
        pending.delete(el);
        send({ k: "fill", el: describeEl(el, false), value: el.value });
      }
      return;
    }
    flush();
    if (el.tagName === "SELECT") {
      const opts = Array.from(el.options).slice(0, 100).map((o) => ({ value: o.value, label: twNorm(o.label || o.text) }));
      const o = el.selectedOptions[0];
      send({ k: "select", el: describeEl(el, false), value: el.value, label: o ? twNorm(o.label || o.text) : "", options: opts });
    } else if (el.type === "checkbox" || el.type === "radio") {
      send({ k: "check", el: describeEl(el, false), checked: el.checked });
    } else if (el.type === "file") {
      send({ k: "upload", el: describeEl(el, false), files: Array.from(el.files || []).map((f) => f.name) });
    }
  }, true);
  W.addEventListener("click", (ev) => {
    if (!ev.isTrusted || ev.button !== 0 || inToolbar(ev)) return;
    const raw = targetOf(ev);
    if (!raw) return;
    const el = raw.closest(actionable) || raw;
    // A click no pointer made (detail 0) right after a key: the key's own
    // doing (Enter submitting a form clicks its button), recorded as the key.
    if (ev.detail === 0 && Date.now() - state.keyAt < 1000) return;
    if (textLike(el) || el.tagName === "SELECT" || el.tagName === "OPTION") return; // a focus: the typing is the action
    if (el.tagName === "INPUT" && ["checkbox", "radio", "file"].includes(el.type)) return; // recorded on change
    if (el.tagName === "LABEL" && el.control && (["checkbox", "radio", "file"].includes(el.control.type) || textLike(el.control) || el.control.tagName === "SELECT")) return;
    flush();
    if (isNext(el)) {
      send({ k: "turn", rows: readRows() });
      return;
    }
    send({ k: "click", el: describeEl(el, false) });
  }, true);
  const named = { Enter: 1, Escape: 1, ArrowDown: 1, ArrowUp: 1, ArrowLeft: 1, ArrowRight: 1, PageDown: 1, PageUp: 1, Home: 1, End: 1, Delete: 1, Backspace: 1, Space: 1 };
  W.addEventListener("keydown", (ev) => {
    if (!ev.isTrusted || inToolbar(ev)) return;
    const el = targetOf(ev);
    if (el && el.tagName === "SELECT") return; // choosing with keys: the change records the choice
    const typing = el && textLike(el);
    const chord = ev.ctrlKey || ev.metaKey || ev.altKey;
    let key = ev.key;
    if (key === " ") key = "Space";
    if (["Shift", "Control", "Alt", "Meta", "Tab", "CapsLock"].includes(key)) return;
    if (typing && !chord && !(key === "Enter" || key === "Escape")) return; // the fill records typing
    if (!chord && !named[key] && key.length !== 1) return;
    if (typing && chord && ["a", "c", "v", "x", "z"].includes(key.toLowerCase())) return; // editing: the fill's value says it
    flush();
    state.keyAt = Date.now();
    const mods = [ev.ctrlKey && "Control", ev.altKey && "Alt", ev.metaKey && "Meta", ev.shiftKey && key.length > 1 && "Shift"].filter(Boolean);
    const onEl = el && el !== document.body && el !== document.documentElement;
    send({ k: "press", key: [...mods, key].join("+"), el: onEl ? describeEl(el, false) : null });
  }, true);
  W.addEventListener("submit", (ev) => {
    const f = ev.target;
    flush();
    send({ k: "submit", method: ((f && f.getAttribute && f.getAttribute("method")) || "get").toLowerCase() });
  }, true);
  W.addEventListener("pagehide", flush, true);

  // ---- refs: how an agent (serve --record) points at elements ----
  // cut quotes s, at most n characters of it; a cut one is followed by
  // "…" so the Go side redacts the start of a secret the cut left at the
  // end (policy.Redactor.RedactCut).
  const cut = (s, n) => s.length > n ? JSON.stringify(s.slice(0, n)) + "\u2026" : JSON.stringify(s);
  const refs = new Map();
  let refSeq = 0;
  const snapshot = () => {
    refs.clear();
    const lines = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll("*")) {
        if (el.shadowRoot) walk(el.shadowRoot);
        if (lines.length >= 300 || el === state.host || !twVisible(el)) continue;
        const kind = twKindOf(el);
        let line = "";
        if (kind && kind !== "frame") {
          const e = twInfo(el, el.getRootNode(), false, kind, 0);
          line = `${e.role || kind} ${JSON.stringify(e.accName || e.name || e.placeholder || "")}`;
          if (kind === "field" && !secretField(el) && "value" in el && el.value) line += ` value=${cut(String(el.value), 80)}`;
        } else if (!kind && Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.data.trim()) && !el.closest(actionable)) {
          line = `text ${cut(twNorm(el.innerText), 120)}`;
        }
        if (!line) continue;
        const ref = "e" + (++refSeq);
        refs.set(ref, el);
        lines.push(`[${ref}] ${line}`);
      }
    };
    walk(document);
    return { url: location.href, title: document.title, lines };
  };
  const byRef = (ref) => {
    const el = refs.get(ref);
    if (!el || !el.isConnected) throw new Error(`no element ${ref} on the page now: take a new page_snapshot`);
    return el;
  };

  W.__twrec = {
    // set: the Go side hands a new document the marks made so far.
    set(spec) {
      state.spec = spec || { rows: null, next: null };
      outline();
    },
    snapshot,
    // point: ref scrolled into view → its center in the viewport.
    point(ref) {
      const el = byRef(ref);
      el.scrollIntoView({ block: "center", inline: "center" });
      const r = el.getBoundingClientRect();
      return [r.x + r.width / 2, r.y + r.height / 2];
    },
    // focus: ref focused (its text selected) → its maxlength (0: none). A
    // secret typed into it (page_fill secret) makes it a secret field.
    focus(ref, secret) {
      const el = byRef(ref);
      if (secret) secretEls.add(el);
      el.focus();
      if (el.select) el.select();
      return el.maxLength > 0 ? el.maxLength : 0;
    },
    choose(ref, value) {
      const el = byRef(ref);
      if (el.tagName !== "SELECT") throw new Error(`${ref} is not a <select>`);
      const o = Array.from(el.options).find((o) => o.value === value) || Array.from(el.options).find((o) => twNorm(o.label || o.text) === twNorm(value));
      if (!o) throw new Error(`${ref} has no option ${JSON.stringify(value)} (it has ${Array.from(el.options).map((o) => JSON.stringify(o.value)).join(", ")})`);
      el.value = o.value;
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
      return o.value;
    },
    // mark: ref is a value the tool returns, as the toolbar's Value marks
    // it → {value}; in a row of the marked list, one of its fields →
    // {field, value, rows}.
    mark(ref) {
      const el = byRef(ref);
      const rows = state.spec.rows;
      const row = rows && rowOf(el);
      if (row && all(document, rows.locs[0]).includes(row) && row !== el) {
        flush();
        const f = markField(el);
        if (f.why) throw new Error(`${ref}: ${f.why.toLowerCase()}`);
        return { field: f.name, value: f.value, rows: rows.count };
      }
      const e = describeEl(el, true);
      if (!e.cands.length) throw new Error(`${ref} has no locator that matches it alone`);
      flush();
      const value = read(el);
      send({ k: "mark", mode: "value", el: e, value });
      return { value };
    },
    // list: ref, a row of a list or an element in one, marks the list's
    // rows (as the toolbar's Rows), and an element in a row as one of
    // their fields → {rows, next, field, value}: how many rows, whether the
    // list's next-page control is marked (found by the recorder when nobody
    // marked one), the field's name and its value in that row ("" for a
    // row: mark its fields with mark).
    list(ref) {
      const el = byRef(ref);
      flush();
      const row = rowOf(el) || (el.parentElement && rowOf(el.firstElementChild || el));
      if (!row) throw new Error(`${ref} is not in a repeating row (a table row, a list item, one of several alike)`);
      if (!markRows(row)) throw new Error(`no selector finds the rows of the list ${ref} is in`);
      const out = { rows: state.spec.rows.count, next: !!state.spec.next, field: "", value: "" };
      if (el !== row) {
        const f = markField(el);
        if (f.why) throw new Error(`${ref}: ${f.why.toLowerCase()}`);
        out.field = f.name;
        out.value = f.value;
      }
      return out;
    },
    // next: ref is the control that turns the list's page.
    next(ref) {
      const el = byRef(ref);
      flush();
      if (!markNext(el.closest(actionable) || el)) throw new Error(`${ref} has no locator that matches it alone`);
      return true;
    },
    // flush: the fields typed into, sent now → how many messages this
    // document sent in all (Recorder.Flush waits until it has them).
    flush() { flush(); return sent; },
    // frame: the iframe element el read as an entry of kind frame.
    frame(el) { return JSON.stringify(describeEl(el, false)); },
  };
  if (document.documentElement) toolbar();
  else document.addEventListener("DOMContentLoaded", toolbar, { once: true });
  if (!state.host) document.addEventListener("readystatechange", toolbar);
})();
