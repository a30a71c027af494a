function (op, req, ...nodes) {
  // The page side of the selector engine: defined in each document of an
  // environment's page before its scripts, unwritable, under a name that
  // holds a hash of this text (so a page can hold neither a stale nor a
  // tampered copy), and sent whole to a document without it (resolve.go's
  // DocumentScript). It keeps nothing between calls. `this` is the scope element
  // (a within parent, or an <iframe> whose document is the scope when
  // req.frame is set) or the window.
  //
  //   op "find":    one locator → null | the element | [elements] with .count, .hidden
  //   op "extract": a whole extract (from, fallbacks, fields, attr, limit) → its JSON text
  //   op "reads":   several extracts of the page's own document in one look → their texts
  //   op "wait":    a promise of the index of the first condition that holds (-1: timed out),
  //                 with the extracts of req.reads read once one held
  //   op "prepare": scroll the element into view, let it settle, focus/clear it → {x, y, cover, disabled, verify}
  //   op "reach":   why a present element never showed: {zero} (drawn, without a size)
  //   op "hit":     after the mouse moved to prepare's point: did the move reach the element?
  //   op "pressed": after a click's press: did the press go to the element, or was it held back?
  //   op "ready":   find a one-element target once and prepare it in the same call
  //   op "typing":  the same for typing (focus, clear) → the element itself, or its state
  //   op "events":  fire DOM events on the element
  //   op "select":  a native <select>: choose; else the ARIA listbox's state
  //   op "option":  the visible option of the element's listbox with that accessible name
  //   op "unskip", "reskip": render skipped content (content-visibility) across calls, and stop
  //   op "late":    after a click: was its form submit held back, has the page begun a navigation since?
  //                 (with req.follow: once what the step set going has run, as the follow hook tells)
  //   op "quiet":   after a document loaded: once what its scripts set going while loading has run
  //   op "crossframes": the iframes whose documents are out of reach here (other sites)
  //   op "read":    the element's text, value, href or attribute (password inputs read "")
  //   op "scroll":  scroll this element (or the page) a screen → {moved, end, height}
  // norm collapses white space; most strings need nothing done, and a scan
  // tells so at a fraction of a regular expression's cost on the strings
  // the DOM hands out (a 200 × 8 read spent half its time here).
  const norm = (s) => {
    s = String(s == null ? "" : s);
    let prev = 32;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      const ws = c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
        c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
      if (ws && (c !== 32 || prev === 32)) return s.replace(/\s+/g, " ").trim();
      prev = ws ? 32 : c;
    }
    return prev === 32 && s.length ? s.replace(/\s+/g, " ").trim() : s;
  };
  // shown is the text a person sees of el (innerText). An element holding
  // one text node, drawn visible and without text-transform, shows that
  // node's text (up to white space, which norm collapses): read it without
  // innerText's walk over the layout.
  const shown = (el) => {
    const c = el.firstChild;
    if (c && c.nodeType === 3 && !c.nextSibling && "innerText" in el && asIs(el)) return c.data;
    return el.innerText !== undefined ? el.innerText : el.textContent;
  };
  // asIs: whether el's text is drawn (visibility: visible) and not
  // transformed (text-transform: none). Both are inherited: el has the
  // values of the nearest element at or above it that may declare them
  // itself, so when the page's style sheets tell which elements may
  // (declares, worked out by a large read), that element's style is asked
  // once for all the cells below it instead of once per cell.
  const styleOk = (cs) => cs.textTransform === "none" && cs.visibility === "visible";
  let declares = null; // the selectors of the rules that may set them; null: ask each element
  const anchored = new Map(); // element → whether the text below it shows as it is
  // Elements the browser's own style sheet gives neither property.
  const plainTags = new Set(("HTML BODY MAIN DIV SPAN P A B I U S EM STRONG SMALL MARK CODE KBD SAMP VAR TIME DATA " +
    "ABBR CITE Q SUB SUP BDI BDO TABLE CAPTION THEAD TBODY TFOOT TR TD TH UL OL LI DL DT DD SECTION ARTICLE " +
    "HEADER FOOTER NAV ASIDE FIGURE FIGCAPTION BLOCKQUOTE PRE ADDRESS H1 H2 H3 H4 H5 H6 HGROUP FORM LABEL").split(" "));
  const mayDeclare = (a) => !plainTags.has(a.tagName) || a.hasAttribute("style") || (declares !== "" && a.matches(declares));
  const asIs = (el) => {
    if (declares === null || el.ownerDocument !== doc || mayDeclare(el)) return styleOk(getComputedStyle(el));
    const path = [];
    let v = true; // nothing above declares them: the initial values
    for (let a = el.parentElement; a; a = a.parentElement) {
      const known = anchored.get(a);
      if (known !== undefined) { v = known; break; }
      if (mayDeclare(a)) { v = styleOk(getComputedStyle(a)); anchored.set(a, v); break; }
      path.push(a);
    }
    for (const a of path) anchored.set(a, v);
    return v;
  };
  // declarers is the selector list of the style sheets' rules that set
  // text-transform, visibility or all (elements with a style attribute and
  // those the browser's own sheet may style are checked apart: mayDeclare),
  // or null when that is not known (a sheet of another origin, nested
  // rules, animations, shadow roots) or not worth it (more rules than
  // budget, more than 40 that set them).
  const declarers = (budget) => {
    if (hasShadow() || (doc.getAnimations && doc.getAnimations().length > 0)) return null;
    const sels = [];
    const scan = (rules) => {
      for (let i = 0; i < rules.length; i++) {
        const r = rules[i];
        if (--budget < 0) return false;
        if (r.styleSheet) { // @import
          if (!scan(r.styleSheet.cssRules)) return false;
          continue;
        }
        const st = r.style;
        const sets = !!st && !!(st.textTransform || st.visibility || st.all);
        if (typeof r.selectorText === "string") {
          if (r.cssRules && r.cssRules.length) return false; // nested rules: relative selectors
          if (sets) {
            if (/::|:(before|after|first-line|first-letter)/i.test(r.selectorText)) return false;
            // Matching a long list against each cell costs more than asking
            // each cell's style.
            if (sels.push(r.selectorText) > 40) return false;
          }
        } else if (r.cssRules) {
          if (!scan(r.cssRules)) return false; // @media, @supports, @layer, @scope: whatever their condition
        } else if (sets) {
          return false; // keyframes and the like
        }
      }
      return true;
    };
    try {
      for (const sheet of [...doc.styleSheets, ...(doc.adoptedStyleSheets || [])]) {
        if (!scan(sheet.cssRules)) return null; // (another origin's sheet throws)
      }
      const list = sels.join(",");
      if (list) doc.documentElement.matches(list); // throws when a selector cannot be matched
      return list;
    } catch (e) {
      return null;
    }
  };
  const isEl = (n) => n && n.nodeType === 1;
  // Disabled: by its own attribute, by a disabled <fieldset> around it
  // (:disabled; not in the fieldset's first legend), or marked aria-disabled.
  const isDisabled = (el) => !!el.disabled || el.matches(":disabled") || el.getAttribute("aria-disabled") === "true";
  // drawn: el has a box, or none of its own but its children may
  // (display: contents, a <slot>'s default).
  const drawn = (el) => el.getClientRects().length > 0 || getComputedStyle(el).display === "contents";
  // shownText is the text node n shows (a shadow root's, whose innerText
  // there is not): an element's innerText when it is drawn (its hidden
  // parts left out), nothing when it is not, nor for style and script
  // (a status component keeps every message in its shadow tree and shows
  // one).
  const shownText = (n) => {
    if (n.nodeType === 3) return n.textContent;
    if (isEl(n)) {
      if (n.tagName === "STYLE" || n.tagName === "SCRIPT" || n.tagName === "TEMPLATE") return "";
      if (getComputedStyle(n).display !== "contents") return n.getClientRects().length ? " " + n.innerText + " " : "";
    } else if (n.nodeType !== 11) {
      return "";
    }
    let s = "";
    for (const c of n.childNodes) s += shownText(c);
    return s;
  };
  // A field a person cannot type in: readonly, or marked aria-readonly.
  const readOnly = (el) => !!el.readOnly || el.getAttribute("aria-readonly") === "true";
  // What stops an action on el: disabled, or read-only for a fill (typing
  // into a cleared field).
  const unusable = (el, fill) => isDisabled(el) || (!!fill && readOnly(el));
  let root = isEl(this) ? this : null;
  let doc = root ? root.ownerDocument : (this && this.nodeType === 9 ? this : document);
  if (req && req.frame) {
    if (!root || !root.isConnected) return null;
    let d = null;
    try { d = root.contentDocument; } catch (e) { d = null; }
    if (!d) return null; // not a readable frame (the Go side checked it is one)
    doc = d;
    root = null;
  }
  if (root && !root.isConnected && op !== "wait" && op !== "prepare") return null; // a stale scope holds nothing

  // The composed tree: light children and open shadow roots.
  const parentOf = (n) => n.parentNode || n.host || null;
  const contains = (a, b) => {
    for (let n = b; n; n = parentOf(n)) if (n === a) return true;
    return false;
  };
  const walk = (node, visit) => {
    if (node.shadowRoot) walk(node.shadowRoot, visit);
    for (let c = node.firstElementChild; c; c = c.nextElementSibling) {
      visit(c);
      walk(c, visit);
    }
  };
  const scopeOf = (r) => r || doc;
  // Whether the document has any open shadow root, asked once per call
  // (most pages have none: plain querySelectorAll then).
  let shadowed = null;
  const hasShadow = () => {
    if (shadowed === null) {
      shadowed = false;
      for (const e of doc.querySelectorAll("*")) if (e.shadowRoot) { shadowed = true; break; }
    }
    return shadowed;
  };
  const all = (scope) => {
    const out = [];
    walk(scope, (e) => out.push(e));
    return out;
  };
  const css = (scope, sel) => {
    if (!hasShadow()) return Array.from(scope.querySelectorAll(sel));
    scope.querySelector(sel); // throws on bad css, as querySelectorAll would
    const out = [];
    walk(scope, (e) => { if (e.matches(sel)) out.push(e); });
    return out;
  };
  const order = (els) => {
    const idx = new Map();
    let i = 0;
    walk(doc, (e) => idx.set(e, i++));
    return els.sort((a, b) => (idx.get(a) ?? 0) - (idx.get(b) ?? 0));
  };
  // seenEl: a visible element a person sees, of a size and not made transparent
  // (opacity 0, its own or an ancestor's); seenIn counts the matches m
  // (first's answer) a person sees: a "Saved" notice kept in the page
  // until it fades in, a spinner faded out, are not. Only waits ask it: a
  // transparent element is still there to read and to act on (a styled
  // checkbox's input). One being faded in or out (an opacity transition
  // or animation running on the transparent element) is seen: a person
  // sees it come or go, and a page the browser draws no frame of at the
  // moment (a tab in the background of a busy browser) holds a fade at its
  // first value until it draws again.
  const fading = (e) => !!e.getAnimations && e.getAnimations().some((a) => a.playState === "running" &&
    !!a.effect && a.effect.getKeyframes().some((k) => k.opacity !== undefined));
  // A person sees nothing of an element of no size (an empty heading
  // before a request fills it, a collapsed panel): unless something drawn
  // inside it has a size (floated or positioned children of a box that
  // collapsed to no height).
  const sized = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width >= 1 && r.height >= 1) return true;
    let n = 0;
    for (const d of el.querySelectorAll("*")) {
      if (++n > 64) return true; // a large box: not of no size to a person, most likely
      const q = d.getBoundingClientRect();
      if (q.width >= 1 && q.height >= 1) return true;
    }
    return false;
  };
  const seenEl = (el) => {
    if (!sized(el)) return false;
    if (!el.checkVisibility || el.checkVisibility({ opacityProperty: true })) return true;
    for (let e = el; e; e = e.parentElement || (e.parentNode && e.parentNode.host) || null) {
      if (getComputedStyle(e).opacity === "0" && fading(e)) return true;
    }
    return false;
  };
  const seenIn = (m) => (m ? m.els.filter(seenEl).length : 0);
  const visible = (el) => {
    if (!el.isConnected) return false;
    const r = el.getBoundingClientRect();
    if (!(r.width || r.height)) return false;
    if (el.checkVisibility) return el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });
    const s = getComputedStyle(el);
    return s.display !== "none" && s.visibility !== "hidden";
  };
  // Content the page skips rendering (content-visibility: auto, far from
  // the viewport) has no text to innerText and no place in the
  // accessibility tree, yet CSS does not hide it: a read sees it while a
  // style sheet of our own (adopted: no DOM mutation) renders everything,
  // removed before the call returns, so no frame is ever drawn with it
  // (op "unskip" keeps it across calls: the accessibility tree). Pages
  // with no rule that may skip content (known from their style sheets,
  // remembered per window until the sheets change) are left alone.
  const CV = "__toolwright_cv";
  // The open shadow roots of the document (their style sheets are their
  // own: the document's neither skip nor unskip content inside them).
  const shadowRoots = () => {
    const out = [];
    if (hasShadow()) walk(doc, (e) => { if (e.shadowRoot) out.push(e.shadowRoot); });
    return out;
  };
  const maySkip = (roots) => {
    const w = doc.defaultView;
    if (!w || !doc.adoptedStyleSheets) return false;
    const owners = [doc, ...roots];
    let n = 0;
    for (const o of owners) n += o.styleSheets.length + o.adoptedStyleSheets.length;
    const known = w[CV];
    let v;
    if (known && known.n === n && known.r === roots.length) v = known.v;
    else {
      const scan = (rules) => {
        for (let i = 0; i < rules.length; i++) {
          const r = rules[i];
          if (r.styleSheet && scan(r.styleSheet.cssRules)) return true;
          if (r.style && r.style.contentVisibility && r.style.contentVisibility !== "visible") return true;
          if (r.cssRules && scan(r.cssRules)) return true;
        }
        return false;
      };
      v = false;
      outer: for (const o of owners) {
        for (const sh of [...o.styleSheets, ...o.adoptedStyleSheets]) {
          try { if (scan(sh.cssRules)) { v = true; break outer; } } catch (e) { v = true; break outer; } // another origin's sheet: it may
        }
      }
      Object.defineProperty(w, CV, { value: { n, r: roots.length, v }, configurable: true });
    }
    return v || owners.some((o) => !!o.querySelector("[style*=content-visibility]"));
  };
  // unskipped is the sheet rendering skipped content and the document and
  // shadow roots it was adopted by, while it is.
  let unskipped = null;
  const unskip = () => {
    if (unskipped) return false;
    const roots = shadowRoots();
    if (!maySkip(roots)) return false;
    const sh = new doc.defaultView.CSSStyleSheet();
    sh.replaceSync("* { content-visibility: visible !important; }");
    const owners = [doc, ...roots];
    for (const o of owners) o.adoptedStyleSheets = [...o.adoptedStyleSheets, sh];
    unskipped = { sh, owners };
    return true;
  };
  const reskip = (u) => {
    if (!u) return;
    for (const o of u.owners) o.adoptedStyleSheets = o.adoptedStyleSheets.filter((x) => x !== u.sh);
  };
  // unskipped runs f with skipped content rendered (see unskip).
  const withUnskipped = (f) => {
    if (!unskip()) return f();
    const u = unskipped;
    try { return f(); } finally { unskipped = null; reskip(u); }
  };
  const textual = (locs) => !!locs && locs.some((l) => l.kind === "text" || l.kind === "label");
  const skip = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE", "META", "LINK", "BR"]);
  const ownText = (el) => {
    if (el.tagName === "INPUT") {
      return ["button", "submit", "reset"].includes(el.type) ? el.value : null;
    }
    return shown(el);
  };
  const labelText = (l) => {
    if (!l.querySelector("select, textarea, button, datalist, output")) return l.innerText;
    const c = l.cloneNode(true);
    for (const x of c.querySelectorAll("select, textarea, button, datalist, output")) x.remove();
    return c.textContent;
  };
  const tester = (loc) => {
    if (loc.src !== null && loc.src !== undefined) {
      const re = new RegExp(loc.src, loc.flags || "");
      return (s) => re.test(norm(s));
    }
    const want = norm(loc.value);
    return (s) => norm(s) === want;
  };

  // candidates runs one locator under r (an element, or null: the document).
  const candidates = (loc, r, given) => {
    const test = loc.kind === "text" || loc.kind === "label" ? tester(loc) : null;
    let cands = [];
    let sortNeeded = false;
    switch (loc.kind) {
      case "css":
        cands = css(scopeOf(r), loc.value);
        if (!hasShadow()) return cands; // descendants of the scope, each once, in order
        break;
      case "xpath": {
        const x = doc.evaluate(loc.value, r || doc, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
        for (let i = 0; i < x.snapshotLength; i++) {
          const n = x.snapshotItem(i);
          cands.push(n.nodeType === 1 ? n : n.nodeType === 2 ? n.ownerElement : n.parentElement);
        }
        break;
      }
      case "text": {
        // A cheap test first: the text, without white space and case, must
        // occur in textContent, which holds all of innerText but line breaks
        // and text-transform (a shadow host's own text is skipped: its
        // shadow content is searched on its own).
        const compact = loc.src == null ? norm(loc.value).replace(/ /g, "").toLowerCase() : null;
        walk(r || doc.body || doc.documentElement, (el) => {
          if (skip.has(el.tagName)) return;
          if (compact !== null && el.tagName !== "INPUT" &&
              !(el.textContent || "").replace(/\s+/g, "").toLowerCase().includes(compact)) return;
          const t = ownText(el);
          if (t != null && test(t)) cands.push(el);
        });
        break;
      }
      case "label": {
        const everything = all(doc);
        for (const l of everything) {
          if (l.tagName === "LABEL" && l.control && test(labelText(l))) cands.push(l.control);
        }
        for (const el of everything) {
          if (el.hasAttribute("aria-label") && test(el.getAttribute("aria-label"))) cands.push(el);
          if (el.hasAttribute("aria-labelledby")) {
            const home = el.getRootNode();
            const ids = el.getAttribute("aria-labelledby").trim().split(/\s+/);
            const t = ids.map((id) => { const x = home.getElementById ? home.getElementById(id) : null; return x ? x.textContent : ""; }).join(" ");
            if (test(t)) cands.push(el);
          }
        }
        sortNeeded = true;
        break;
      }
      case "nodes":
        cands = given || [];
        sortNeeded = true;
        break;
      default:
        throw new Error("unknown strategy " + loc.kind);
    }
    const seen = new Set();
    const inScope = (el) => !r || (el !== r && contains(r, el));
    cands = cands.filter((el) => isEl(el) && inScope(el) && !seen.has(el) && seen.add(el));
    if (sortNeeded && cands.length > 1) order(cands);
    return cands;
  };

  // pick applies visibility and nesting: the visible matches (or, when none
  // is visible and hidden ones may do, the hidden ones), innermost only
  // where nested matches are one thing on screen.
  const pick = (loc, cands, many, visibleOnly, anyOne) => {
    // anyOne: one match of a one-element target is taken as it is, visible
    // or not (extract fields: no layout query per cell).
    if (anyOne && !many && !visibleOnly && cands.length === 1) return { els: cands, hidden: false };
    let els = cands.filter(visible);
    let hidden = false;
    if (els.length === 0) {
      if (visibleOnly || cands.length === 0) return null;
      els = cands;
      hidden = true;
    }
    const innermost = !many || loc.kind === "text" || loc.kind === "label" || loc.kind === "nodes";
    // In composed order an element that holds another match is directly
    // followed by one of them.
    if (innermost) els = els.filter((el, i) => !(i + 1 < els.length && contains(el, els[i + 1])));
    return { els, hidden };
  };

  const find = (loc, r, many, visibleOnly, given, anyOne) => pick(loc, candidates(loc, r, given), many, visibleOnly, anyOne);

  // first resolves a locator list: the first locator that matches wins.
  const first = (locs, r, many, visibleOnly) => {
    for (let i = 0; i < locs.length; i++) {
      let h;
      try {
        h = find(locs[i], r, many, visibleOnly);
      } catch (e) {
        continue; // a broken locator never matches; the Go side reports it
      }
      if (h) return { i, els: h.els, hidden: h.hidden };
    }
    return null;
  };

  // rowIndex maps the rows els[k] (k in ks; null: all) to k, with the
  // element to query below: their parent when they share one.
  let allRows = null; // rowIndex of all the rows, made once per extract
  const rowIndex = (els, ks) => {
    const idx = new Map();
    const p0 = els[ks ? ks[0] : 0].parentNode;
    let same = !!(p0 && p0.querySelectorAll);
    const add = (k) => { const el = els[k]; idx.set(el, k); if (el.parentNode !== p0) same = false; };
    if (ks) for (const k of ks) add(k);
    else for (let k = 0; k < els.length; k++) add(k);
    return { idx, scope: same ? p0 : (root || doc) };
  };
  // cellsOf finds one field in every row of els: for each row what
  // find(loc, row, false, false, undefined, true) of its locators in turn
  // finds first (a field's one match is taken as it is, visible or not),
  // each locator tried only on the rows still without a match. A css
  // locator runs once for all rows: row.querySelectorAll(sel) is the
  // document's matches of sel that lie below row, so the matches below the
  // rows' parent, each walked up to the rows that hold it, are every row's
  // (not with shadow roots, nor with :scope, which names the row itself).
  // → {cells: an element or null per row, used: the rows each locator found}
  const cellsOf = (els, locs) => {
    const n = els.length;
    const cells = new Array(n).fill(null);
    const used = new Array(locs.length).fill(0);
    let todo = n ? null : []; // the rows still without a match (null: all of them)
    for (let i = 0; i < locs.length && (todo === null || todo.length > 0); i++) {
      const loc = locs[i];
      let one = null, cnt = null;
      if (loc.kind === "css" && !hasShadow() && !/:scope/i.test(loc.value)) {
        const { idx, scope } = todo ? rowIndex(els, todo) : (allRows || (allRows = rowIndex(els, null)));
        let nl;
        try { nl = scope.querySelectorAll(loc.value); } catch (e) { continue; } // broken: never matches
        one = new Array(n);
        cnt = new Uint32Array(n);
        for (let j = 0; j < nl.length; j++) {
          const c = nl[j];
          for (let a = c.parentNode; a && a !== scope; a = a.parentNode) {
            const k = idx.get(a);
            if (k !== undefined && cnt[k]++ === 0) one[k] = c;
          }
        }
      }
      const left = [];
      const visit = (k) => {
        let el = null;
        if (cnt && cnt[k] === 0) { left.push(k); return; }
        if (cnt && cnt[k] === 1) el = one[k];
        else {
          let h = null;
          try { h = find(loc, els[k], false, false, undefined, true); } catch (e) { h = null; }
          if (h) el = h.els[0];
        }
        if (!el) { left.push(k); return; }
        cells[k] = el;
        used[i]++;
      };
      if (todo) for (const k of todo) visit(k);
      else for (let k = 0; k < n; k++) visit(k);
      todo = left;
    }
    return { cells, used };
  };

  const read = (el, attr) => {
    if (el.tagName === "INPUT" && (el.type || "").toLowerCase() === "password") return "";
    switch (attr) {
      case "text": {
        const t = shown(el);
        return t == null ? null : norm(t);
      }
      case "value": return "value" in el ? String(el.value) : (el.getAttribute("value") == null ? null : norm(el.getAttribute("value")));
      case "href": return el.href !== undefined ? String(el.href) : el.getAttribute("href");
      default: return el.getAttribute(attr);
    }
  };

  // ARIA listboxes: the list a combobox (or a button opening one) controls,
  // and its options by accessible name.
  const accName = (el) => norm(el.getAttribute("aria-label") || el.innerText || el.textContent || "");
  const listboxOf = (t) => {
    if (t.getAttribute("role") === "listbox") return t;
    const home = t.getRootNode();
    for (const attr of ["aria-controls", "aria-owns"]) {
      for (const id of (t.getAttribute(attr) || "").trim().split(/\s+/)) {
        const x = id && home.getElementById ? home.getElementById(id) : null;
        if (x) return x.getAttribute("role") === "listbox" ? x : (x.querySelector("[role=listbox]") || x);
      }
    }
    for (let n = t.parentElement; n; n = n.parentElement) {
      const lb = n.querySelector("[role=listbox]");
      if (lb) return lb;
    }
    return null;
  };
  const optionsOf = (lb) => Array.from(lb.querySelectorAll("[role=option]"));
  const optionNamed = (t, value) => {
    const lb = listboxOf(t);
    if (!lb || !visible(lb)) return null;
    const want = norm(value);
    return optionsOf(lb).find((o) => visible(o) && (accName(o) === want || o.getAttribute("data-value") === value)) || null;
  };

  // crossFrames lists the iframes whose documents d cannot read (another
  // site: out of process), in d and in its readable frames; with one, only
  // whether there is any ([] or [the first]).
  const crossFrames = (d0, one) => {
    const out = [];
    const seen = new Set();
    const inDoc = (d) => {
      if (!d || seen.has(d) || (one && out.length)) return;
      seen.add(d);
      // Light DOM only when the page has no shadow root (most pages).
      const fs = d === doc && !hasShadow() ? d.querySelectorAll("iframe, frame") : all(d).filter((f) => f.tagName === "IFRAME" || f.tagName === "FRAME");
      for (const f of fs) {
        let fd = null;
        try { fd = f.contentDocument; } catch (e) { fd = null; }
        if (fd) inDoc(fd); else out.push(f);
        if (one && out.length) return;
      }
    };
    inDoc(d0);
    return out;
  };

  // describe names an element for a message: tag, id, two classes
  // (shortName), text.
  const shortName = (el) => {
    const id = el.id ? "#" + el.id : "";
    const cls = typeof el.className === "string" && el.className.trim()
      ? "." + el.className.trim().split(/\s+/).slice(0, 2).join(".") : "";
    return el.tagName.toLowerCase() + id + cls;
  };
  const describe = (el) => {
    let text = norm(el.innerText || el.textContent || "");
    if (text.length > 40) text = text.slice(0, 40) + "…";
    return shortName(el) + (text ? " " + JSON.stringify(text) : "");
  };

  // The mouse and other processes. The browser sends a mouse event to the
  // process whose content it last saw drawn at that point: just after the
  // page moved (a scroll into view), a point that was over a frame from
  // another site (out of process) still goes to that frame, and the page
  // never sees the click (nor does the frame see one meant for it). So on
  // a page with such frames (or in one), a pointer action checks that its
  // mouse move reached the element before it presses (op "hit"); the Go
  // side prepares again and moves again when it did not. The move is
  // recorded under this key of the element's window.
  const HIT = "__toolwright_hit";
  const outOfProcess = (win) => {
    let w = win;
    while (w.frameElement) w = w.parent; // up through readable frames
    return w !== w.top || crossFrames(w.document, true).length > 0;
  };
  const watchHit = (el, win) => {
    const old = win[HIT];
    if (old) old.off();
    const rec = { el, hit: null, what: "" };
    const h = (e) => {
      const path = e.composedPath();
      rec.hit = path.includes(el);
      rec.what = rec.hit || !isEl(path[0]) ? "" : describe(path[0]);
    };
    const timer = setTimeout(() => rec.off(), 30000);
    rec.off = () => {
      win.removeEventListener("mousemove", h, true);
      clearTimeout(timer);
      if (win[HIT] === rec) delete win[HIT];
    };
    win.addEventListener("mousemove", h, true);
    Object.defineProperty(win, HIT, { value: rec, configurable: true });
  };

  // The press. Between prepare's check and the press (two or three round
  // trips later on a busy machine) the page may still move: a notice
  // inserted above after an XHR, a menu bar that grows. The mouse then
  // presses whatever came under the point, a neighbouring link, and the
  // click would be answered ok. So a click's prepare sets a guard on its
  // window for the press: when the press's first event (pointerdown,
  // mousedown) does not go to the element (or a label of it), that event
  // and the rest of the press (up, click) are held back from the page
  // (nothing is clicked) and op "pressed" tells the Go side, which prepares
  // and presses again. The page may also move between the press and the
  // release: a field that loses its focus to the press shows its check
  // above the button (jQuery validate), so the release lands on the check
  // and the browser clicks their common ancestor, not the element. That
  // click is held back too ("released": nothing was clicked), unless the
  // element is gone by then: it acted on the press (a menu item that
  // closes its menu) and was clicked.
  const PRESS = "__toolwright_press";
  // The element whose going stale shows a click changed the page (op
  // "ready" with mark), kept on its window: a new document has none.
  const MARK = "__toolwright_mark";
  // A wait whose "changed" condition held (the page changed in place)
  // leaves this on the window: the time of the last DOM change since,
  // kept by an observer that runs on until the next "settled" condition
  // takes it. That wait counts its quiet from the last change, not from
  // its own start (a list replaced 20 ms before the call has been
  // standing still for those 20 ms already).
  const CLOCK = "__toolwright_clock";
  const domChanges = (doc, obs) => {
    const opts = { subtree: true, childList: true, attributes: true, characterData: true };
    obs.observe(doc, opts);
    for (const h of all(doc)) if (h.shadowRoot) obs.observe(h.shadowRoot, opts);
    return obs;
  };
  // pressedOn is what the press watched on win came to (op "pressed"),
  // and ends the watch.
  const pressedOn = (w) => {
    const rec = w[PRESS];
    if (!rec) return { missed: false };
    rec.off();
    const away = rec.cross && !rec.state;
    const out = { missed: away || rec.state === "missed" || rec.state === "released", released: rec.state === "released", away, what: rec.what };
    if (rec.state === "hit") out.unsent = unsent(rec.el, w);
    return out;
  };
  // On a page with frames from other sites (cross), a press the window
  // never saw went to one of them: the browser sends input to the process
  // it last drew at the point (a frame that slid over the element, or
  // was drawn there before a scroll), and this page has no say in it.
  // Nothing was clicked here: "pressed" answers a miss ("away").
  const watchPress = (el, win, cross) => {
    const old = win[PRESS];
    if (old) old.off();
    const rec = { el, state: "", what: "", cross };
    // On el or inside it, on a label of it, or on the host of a closed
    // shadow root el is in (the window sees no deeper than the host there).
    const hosts = [];
    for (let r = el.getRootNode(); r && r.host; r = r.host.getRootNode()) hosts.push(r.host);
    const onto = (path) => path.includes(el) || path.some((n) => isEl(n) && n.tagName === "LABEL" && n.control === el) ||
      (isEl(path[0]) && hosts.includes(path[0]));
    const h = (e) => {
      if (!rec.state && (e.type === "pointerdown" || e.type === "mousedown")) {
        const path = e.composedPath();
        rec.state = onto(path) ? "hit" : "missed";
        if (rec.state === "missed") rec.what = isEl(path[0]) ? describe(path[0]) : "";
      }
      if (rec.state === "hit" && e.type === "click" && el.isConnected) {
        const path = e.composedPath();
        if (!onto(path)) {
          rec.state = "released";
          rec.what = isEl(path[0]) ? describe(path[0]) : "";
        }
      }
      if (rec.state === "missed" || rec.state === "released") {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
      if (e.type === "click") stop();
    };
    const types = ["pointerdown", "mousedown", "pointerup", "mouseup", "click"];
    const stop = () => {
      for (const t of types) win.removeEventListener(t, h, true);
      clearTimeout(timer);
    };
    const timer = setTimeout(stop, 30000);
    rec.off = () => {
      stop();
      if (win[PRESS] === rec) delete win[PRESS];
    };
    for (const t of types) win.addEventListener(t, h, true);
    Object.defineProperty(win, PRESS, { value: rec, configurable: true });
  };

  // A click may submit a form whose page handles the submit itself
  // (preventDefault, an async validation, then form.submit()): its
  // navigation starts late. The submit events of the next seconds are
  // noted under this key of the window (op "late" reads them), and the
  // first control the browser found invalid when it did not send the form
  // (its invalid event; see unsent).
  const SUBMIT = "__toolwright_submit";
  const watchSubmit = (win) => {
    const old = win[SUBMIT];
    if (old) old.off();
    const rec = { ev: null, at: 0, invalid: null };
    const h = (e) => { rec.ev = e; rec.at = performance.now(); };
    const inv = (e) => {
      if (!rec.invalid && isEl(e.target)) rec.invalid = { what: describe(e.target), message: e.target.validationMessage || "" };
    };
    const timer = setTimeout(() => rec.off(), 10000);
    rec.off = () => {
      win.removeEventListener("submit", h, true);
      win.removeEventListener("invalid", inv, true);
      clearTimeout(timer);
    };
    win.addEventListener("submit", h, true);
    win.addEventListener("invalid", inv, true);
    Object.defineProperty(win, SUBMIT, { value: rec, configurable: true });
  };
  // refused: form, one the browser checks, was not sent since the watch
  // began in win: the browser validated its controls (an invalid event
  // fired) and no submit event followed. → the first control it found
  // invalid {what, message}, else null.
  const refused = (form, win) => {
    const sub = win[SUBMIT];
    return form && !form.noValidate && sub && !sub.ev && sub.invalid ? sub.invalid : null;
  };
  // flagged: the first control of form, shown, that the page's own check
  // marks invalid as a person sees it: aria-invalid="true" (what form
  // libraries and design systems set with their message), Bootstrap's
  // is-invalid, or, in a form the page checks itself (novalidate), one
  // failing the browser's rules. → {what, message}, the message the page
  // ties to it (aria-errormessage, aria-describedby, Bootstrap's
  // invalid-feedback beside it) or the browser's; null when none is.
  const flagged = (form) => {
    if (!form || !form.querySelectorAll) return null;
    for (const el of form.querySelectorAll('[aria-invalid="true"], .is-invalid, input, select, textarea')) {
      const marked = el.getAttribute("aria-invalid") === "true" || el.classList.contains("is-invalid") ||
        (form.noValidate && el.willValidate && el.validity && !el.validity.valid);
      if (!marked || !visible(el)) continue;
      const d = el.ownerDocument;
      const said = (ids) => norm((ids || "").split(/\s+/).map((id) => {
        const t = id && d.getElementById(id);
        return t ? shown(t) : "";
      }).join(" "));
      const feedback = el.classList.contains("is-invalid") && el.parentElement ? el.parentElement.querySelector(".invalid-feedback") : null;
      const message = said(el.getAttribute("aria-errormessage")) || said(el.getAttribute("aria-describedby")) ||
        (feedback ? norm(shown(feedback)) : "") || el.validationMessage || "";
      return { what: describe(el), message: message.slice(0, 200) };
    }
    return null;
  };
  // unsent: what the browser refused when el, a form's submit button (or
  // inside one), was clicked (see refused), else null.
  const unsent = (el, win) => {
    const b = el.closest ? el.closest("button, input") : null;
    const submits = !!b && (b.tagName === "BUTTON" ? b.type === "submit" : b.type === "submit" || b.type === "image");
    return submits && !b.formNoValidate ? refused(b.form, win) : null;
  };

  // A click's page may go elsewhere on its own schedule: a handler that
  // posts with fetch, then sets location.href, runs its second half when
  // the response arrives, however late a loaded machine runs it. The
  // navigations the page begins from the click on are noted under this key
  // of the top window, as the page begins them (op "late" reads them): the
  // Navigation API's navigate event, or beforeunload where there is none.
  const LEAVE = "__toolwright_leave";
  // navigationOf is win's Navigation API, null where there is none.
  const navigationOf = (win) => (win.navigation && typeof win.navigation.addEventListener === "function" ? win.navigation : null);
  const watchLeave = (win) => {
    let top = win;
    try {
      if (win.top.document) top = win.top;
    } catch (e) {
      // the top window is another site's: the frame's own
    }
    const old = top[LEAVE];
    if (old) old.off();
    const nav = navigationOf(top);
    const rec = { evs: [], unload: false, at: -1 };
    const h = (e) => {
      if (nav) rec.evs.push(e);
      else rec.unload = true;
      rec.at = performance.now();
    };
    const timer = setTimeout(() => rec.off(), 60000);
    rec.off = () => {
      (nav || top).removeEventListener(nav ? "navigate" : "beforeunload", h);
      clearTimeout(timer);
    };
    (nav || top).addEventListener(nav ? "navigate" : "beforeunload", h);
    Object.defineProperty(top, LEAVE, { value: rec, configurable: true });
  };
  // leaving: whether the page began, since the click, a navigation to
  // another document that it did not cancel (a same-document one, a
  // download or one the page intercepted loads nothing).
  const leaving = (rec) => {
    if (!rec) return false;
    if (rec.unload) return true;
    return rec.evs.some((e) => !e.defaultPrevented && !e.hashChange && !e.destination.sameDocument && !e.downloadRequest);
  };
  // The follow hook's name on the page's window (engine/browser/follow.js).
  const FOLLOW = "__toolwright_follow";
  // markSecret: op "secret".
  const markSecret = (el, mark) => {
    const set = (e) => { if (e && e.nodeType === 1) e.setAttribute(mark, ""); };
    set(el);
    const d = el.ownerDocument;
    let a = d && d.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    if (a && a !== d.body && a !== d.documentElement) set(a);
  };
  // drew: whether the DOM changes recorded (a MutationObserver's) drew
  // text showing value: a node added or a text changed that holds it.
  const drew = (changes, value) => {
    const v = norm(value);
    if (!v) return false;
    for (const c of changes) {
      if (c.type === "characterData" && norm(c.target.data).includes(v)) return true;
      for (const n of c.addedNodes || []) {
        if (norm(n.nodeType === 1 ? shown(n) : n.textContent).includes(v)) return true;
      }
    }
    return false;
  };
  // shownBeside: whether the text of el's nearest containers (up to its
  // form, four levels at most) shows value: what a field took and moved
  // out of itself (a chip, a list of chosen files).
  const shownBeside = (el, value) => {
    const v = norm(value);
    if (!v) return false;
    let e = el.parentElement;
    for (let i = 0; e && i < 4 && e !== el.ownerDocument.body; i++, e = e.parentElement) {
      if (norm(e.innerText).includes(v)) return true;
      if (e.tagName === "FORM") break;
    }
    return false;
  };
  // followed: a promise of what the hook f says once the cause kind has
  // nothing pending (at most max ms: {waited, idle, left}), or as soon as
  // the page begins to leave for another document ({leaving: true}):
  // what is pending then never runs here.
  const followed = (win, f, kind, max, soon) => new Promise((resolve) => {
    const nav = navigationOf(win);
    const type = nav ? "navigate" : "beforeunload";
    const left = (e) => {
      if (nav && (e.defaultPrevented || e.hashChange || e.destination.sameDocument || e.downloadRequest)) return;
      (nav || win).removeEventListener(type, left);
      resolve({ waited: 0, idle: false, left: [], leaving: true });
    };
    (nav || win).addEventListener(type, left);
    f.quiet(kind, max, soon).then((q) => {
      (nav || win).removeEventListener(type, left);
      resolve(q);
    });
  });
  // A form submit the page did not hold back navigates when the browser
  // runs it, in a task of its own after the click (later still when the
  // click left work queued before it): until then the page has not begun
  // the navigation. submitPending: whether a click's submit (SUBMIT of win)
  // will navigate this window and the navigation has not begun yet (no
  // navigate event, or beforeunload, since the submit).
  const submitPending = (win) => {
    const sub = win[SUBMIT], lv = win[LEAVE];
    if (!sub || !sub.ev || sub.ev.defaultPrevented || (lv && lv.at >= sub.at)) return false;
    const form = sub.ev.target, by = sub.ev.submitter;
    const own = (attr) => (by && by.hasAttribute("form" + attr) ? by.getAttribute("form" + attr) : form.getAttribute(attr));
    if ((own("method") || "").toLowerCase() === "dialog") return false;
    let target = own("target");
    if (!target) {
      const base = form.ownerDocument.querySelector("base[target]");
      target = base ? base.getAttribute("target") : "";
    }
    target = target.toLowerCase();
    return target === "" || target === "_self" || (win === win.top && (target === "_top" || target === "_parent"));
  };

  // fitting is what a fill's value meets in el before anything is typed:
  // a field keeps only as many characters as its maxlength allows, and a
  // number, date, time, colour or range field only a value of its kind
  // (the browser drops or rewrites the rest: "1,5" becomes 15, a date
  // typed as text stays empty). → {toolong: N, len} | {rejected: type,
  // kept} (what the field would hold) | {set: true} (a value of a picker
  // field, which typing cannot fill: it is set as its picker sets it) |
  // null (type it).
  const TEXT_TYPES = new Set(["text", "search", "url", "tel", "email", "password"]);
  const PICKED_TYPES = new Set(["date", "time", "datetime-local", "month", "week", "color", "range"]);
  const fitting = (el, value) => {
    if (typeof value !== "string" || value === "") return null;
    const input = el.tagName === "INPUT";
    if (el.tagName === "TEXTAREA" || (input && TEXT_TYPES.has(el.type))) {
      return el.maxLength >= 0 && value.length > el.maxLength ? { toolong: el.maxLength, len: value.length } : null;
    }
    if (!input || (el.type !== "number" && !PICKED_TYPES.has(el.type))) return null;
    // A detached field of the same kind and bounds says what the browser
    // keeps of the value (its value sanitization), without touching el.
    const probe = el.ownerDocument.createElement("input");
    probe.type = el.type;
    for (const a of ["min", "max", "step"]) if (el.hasAttribute(a)) probe.setAttribute(a, el.getAttribute(a));
    probe.value = value;
    const kept = probe.value;
    if (kept !== value && !(el.type === "color" && kept === value.toLowerCase())) return { rejected: el.type, kept };
    return PICKED_TYPES.has(el.type) ? { set: true } : null;
  };
  // What a fill types into, as a person can type: a text field (an input
  // of a typing kind), a textarea, or an editable element
  // (contenteditable). typingTarget(el) is where a fill of el types: el
  // itself; a label's field (a click on a label focuses it); the one field
  // in the shadow tree of a component (an <sl-input>, whose field is its
  // own). → the element, or {notfield: what el is, use (the step for
  // it), holds (the field a box around it holds, or a label's), fields
  // (how many it holds when more than one)} for what takes no typing.
  const NOT_TYPED = { checkbox: ["a checkbox", "check"], radio: ["a radio button", "check"], file: ["a file field", "upload"],
    submit: ["a button"], button: ["a button"], reset: ["a button"], image: ["a button"], hidden: ["a hidden field"] };
  const fieldOf = (el) => el.tagName === "INPUT" || el.tagName === "TEXTAREA";
  const typable = (el) => (fieldOf(el) && !NOT_TYPED[el.type]) || el.isContentEditable;
  const fieldName = (el) => shortName(el) + (el.isContentEditable ? " (contenteditable)" : "");
  // fieldsIn: the visible fields under el and in its open shadow trees (an
  // editor once: its editing host, not the elements inside it).
  const fieldsIn = (el, own) => {
    const out = [];
    const walk = (n) => {
      for (const c of n.children) {
        if (typable(c) && visible(c)) out.push(c);
        else walk(c);
        if (c.shadowRoot) walk(c.shadowRoot);
      }
    };
    if (!own) walk(el);
    if (el.shadowRoot) walk(el.shadowRoot);
    return out;
  };
  const typingTarget = (el) => {
    if (typable(el)) return el;
    if (el.tagName === "INPUT") return { notfield: NOT_TYPED[el.type][0], use: NOT_TYPED[el.type][1] || "" };
    if (el.tagName === "SELECT") return { notfield: "a <select>", use: "select" };
    const what = "a <" + el.tagName.toLowerCase() + ">";
    if (el.tagName === "LABEL" && el.control) {
      const t = typingTarget(el.control);
      return isEl(t) ? t : Object.assign(t, { label: true });
    }
    const own = fieldsIn(el, true);
    if (own.length === 1) return own[0];
    const all = own.length ? own : fieldsIn(el, false);
    return all.length === 1 ? { notfield: what, holds: fieldName(all[0]) } : { notfield: what, fields: all.length };
  };
  // inert: whether the page made el inert (the inert attribute on it or
  // above it, in its frame or the frames holding it): no pointer, focus
  // or typing reaches it. (A modal dialog open over it covers it: cover.)
  const inert = (el) => {
    for (let e = el; e; ) {
      for (let n = e; n; n = parentOf(n)) if (isEl(n) && n.hasAttribute("inert")) return true;
      let f = null;
      try { f = e.ownerDocument.defaultView.frameElement; } catch (x) { f = null; }
      e = f;
    }
    return false;
  };
  // unfocused: why el, just focused, does not hold the keyboard focus (a
  // key pressed in it, or text typed into it, would go elsewhere) → null
  // when it (or what it holds, or a label's field) does | {unfocused:
  // "none", what} (an element that takes no focus: a <div> without
  // tabindex) | {unfocused: "moved", to} (the page moved the focus
  // elsewhere: a dialog keeping it inside).
  const FOCUSABLE = "input, select, textarea, button, a[href], area[href], iframe, summary, [tabindex], [contenteditable]";
  const unfocused = (el) => {
    const a = el.getRootNode().activeElement;
    if (a && (a === el || el.contains(a) || (el.tagName === "LABEL" && a === el.control))) return null;
    if (!el.matches(FOCUSABLE) && !el.isContentEditable) return { unfocused: "none", what: "a <" + el.tagName.toLowerCase() + ">" };
    return { unfocused: "moved", to: a && a !== el.ownerDocument.body ? describe(a) : "the page" };
  };
  // setValue sets a field's value as its picker would, past a framework's
  // own value property (React tracks what a script sets through it and
  // would take the input event for no change), then fires input and change.
  const setValue = (el, value) => {
    Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), "value").set.call(el, value);
    el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
  };

  // animating: a CSS animation or transition is running in d that may
  // move what is about to be clicked. One that only repaints (a field's
  // border colour fading in as it takes the focus, as design systems draw
  // it) moves nothing: the click goes out without waiting for a frame.
  const PAINT_ONLY = /^(color|opacity|background-color|background-position|(border(-(top|right|bottom|left|block|inline)(-(start|end))?)?|outline|column-rule|text-decoration|text-emphasis|caret|accent)-color|box-shadow|text-shadow|outline(-(width|style|offset))?|filter|backdrop-filter|fill|stroke|fill-opacity|stroke-opacity)$/;
  const animated = (a) => {
    if (typeof a.transitionProperty === "string") return [a.transitionProperty];
    const kfs = a.effect && a.effect.getKeyframes ? a.effect.getKeyframes() : null;
    if (!kfs) return null;
    const props = new Set();
    for (const kf of kfs) {
      for (const k of Object.keys(kf)) {
        if (k !== "offset" && k !== "computedOffset" && k !== "easing" && k !== "composite") props.add(k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()));
      }
    }
    return [...props];
  };
  const moves = (a) => {
    const props = animated(a);
    return !props || props.length === 0 || props.some((p) => !PAINT_ONLY.test(p));
  };
  const animating = (d) => !d.getAnimations || d.getAnimations().some((a) => a.playState === "running" && moves(a));

  // prepareEl gets el ready for a user action, in one round trip:
  // scroll it into view when it is not, wait one animation frame for it
  // to stand still (a click), and report what stops the action. The point is in
  // the coordinates of the page whose session dispatches the input
  // (same-process frames add their iframes' offsets).
  // req: {focus, clear, value, settle, front}. → {x, y, cover, disabled, readonly, gone, verify,
  // toolong, len, rejected, kept, done, unfocused, what, to} | {background} | {inert}
  // | {unreachable, ...} (el is the element a fill types into: see typingTarget)
  // (readonly: a field to clear, fill, that a person cannot type in; nothing is cleared)
  // (unfocused: el does not hold the keyboard focus it was given, see
  // unfocused; inert: the page made it inert; nothing was done)
  // (clear with value: a fill of value; toolong, rejected: the field does
  // not take it, see fitting, and nothing was cleared; done: it was set)
  // (verify: the mouse move must be checked, see HIT).
  const prepareEl = (el, req) => {
    if (!el || !el.isConnected) return { gone: true };
    // A page behind another tab (a target=_blank popup left open) runs
    // no animation frames: the Go side brings it to the front (front set
    // once it tried) and asks again.
    const background = el.ownerDocument.visibilityState === "hidden";
    if (background && !req.front) return { background: true };
    const win = el.ownerDocument.defaultView;
    const inView = (r) => r.top >= 0 && r.left >= 0 && r.bottom <= win.innerHeight && r.right <= win.innerWidth;
    const scrolled = !inView(el.getBoundingClientRect());
    if (scrolled) el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    // In view of its frame is not in view of the page: a frame below the
    // fold is scrolled into view too ("nearest": nothing moves when it
    // shows). A cross-site frame out of view gets no animation frames.
    else if (win !== win.top) el.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
    const rectKey = (r) => [r.x, r.y, r.width, r.height].map((v) => Math.round(v)).join(",");
    // need: how many frames in a row the element must keep its place. A
    // page that skips rendering content far from the viewport
    // (content-visibility: auto) renders what a scroll brought near only
    // in the frame after the first, and the element moves then: two.
    const settle = (tries, need) => new Promise((resolve) => {
      if (background) { resolve(); return; }
      // Frames the browser does not render (throttled) run no animation
      // frames: a timer ends the wait (nothing moves there either).
      const timer = setTimeout(resolve, need > 1 ? 500 : 250);
      let before = rectKey(el.getBoundingClientRect());
      let still = 0;
      const step = (n) => requestAnimationFrame(() => {
        const now = rectKey(el.getBoundingClientRect());
        still = now === before ? still + 1 : 0;
        if (still >= need || n <= 0) { clearTimeout(timer); resolve(); }
        else { before = now; step(n - 1); }
      });
      step(tries);
    });
    const coverAt = (d, x, y, target) => {
      let hit = d.elementFromPoint(x, y);
      while (hit && hit.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(x, y);
        if (!inner || inner === hit) break;
        hit = inner;
      }
      if (!hit || contains(target, hit)) return null;
      if (hit.tagName === "LABEL" && hit.control === target) return null;
      // Name the outermost positioned box of the cover that does not hold the target.
      let cover = hit;
      for (let n = parentOf(hit); n && isEl(n) && !contains(n, target); n = parentOf(n)) {
        const s = getComputedStyle(n);
        if (s.position === "fixed" || s.position === "absolute" || s.position === "sticky") cover = n;
      }
      return describe(cover);
    };
    // Only a pointer action needs the element to stand still: a focus
    // (fill, press) lands wherever it is (req.settle). A click's element
    // that was not scrolled, in a document where no CSS animation or
    // transition is running, stands still already: its press goes out
    // without waiting for a frame. Should a script move it meanwhile, the
    // press guard (PRESS) holds back a press that lands elsewhere, and the
    // click is aimed again.
    const still = req.press && !scrolled && !background && !animating(el.ownerDocument);
    // A cover that is still moving or fading (a dialog sliding in, a
    // shade fading out, a tree opening: a jQuery animation changes styles
    // frame by frame, which no CSS animation shows) is waited for until
    // what is at the element's centre stands still for two frames, at most
    // coverMax ms: then it covers, or it has gone.
    const coverMax = 1500;
    const coverSettled = () => new Promise((resolve) => {
      const until = performance.now() + coverMax;
      const sig = () => {
        const r = el.getBoundingClientRect();
        const x = r.left + r.width / 2, y = r.top + r.height / 2;
        const hit = el.ownerDocument.elementFromPoint(x, y);
        const c = hit && !contains(el, hit) ? hit : null;
        // The boxes around the element too: one growing over it (a
        // sliding panel whose overflow hides it until it has grown).
        const around = [];
        for (let a = parentOf(el), i = 0; a && isEl(a) && i < 6; a = parentOf(a), i++) around.push(rectKey(a.getBoundingClientRect()));
        return [rectKey(r), around.join(";"), c ? rectKey(c.getBoundingClientRect()) + describe(c) + getComputedStyle(c).opacity : ""].join("|");
      };
      let last = sig(), still = 0;
      const look = () => {
        const tick = () => {
          const now = sig();
          still = now === last ? still + 1 : 0;
          last = now;
          if (still >= 2 || performance.now() > until) resolve();
          else look();
        };
        // A tab the browser draws no frame of runs no animation frame.
        const t = setTimeout(tick, 60);
        requestAnimationFrame(() => { clearTimeout(t); setTimeout(tick, 16); });
      };
      look();
    });
    let coverWaited = !req.settle || background;
    const measure = () => {
      const r = el.getBoundingClientRect();
      let x = r.left + r.width / 2, y = r.top + r.height / 2;
      // A pointer reaches only what is drawn inside the window: an element
      // still out of it after the scroll into view (placed off screen,
      // left: -9999em until its row is hovered), or without a size, is
      // unreachable (a focus still lands on it: fill, press).
      if (req.settle) {
        if (!(r.width >= 1 && r.height >= 1)) return { unreachable: "zero", x, y };
        if (!(x >= 0 && y >= 0 && x < win.innerWidth && y < win.innerHeight)) {
          return { unreachable: "offscreen", x, y, w: win.innerWidth, h: win.innerHeight };
        }
      }
      if (inert(el)) return { inert: true };
      const out = { disabled: unusable(el, req.clear) };
      if (out.disabled && !isDisabled(el)) out.readonly = true;
      out.cover = coverAt(el.ownerDocument, x, y, el);
      if (out.cover && !coverWaited) {
        coverWaited = true;
        return coverSettled().then(measure);
      }
      // Up through same-process iframes: their offsets, and what covers them.
      for (let w = el.ownerDocument.defaultView; !out.cover && w.frameElement; w = w.parent) {
        const f = w.frameElement, fr = f.getBoundingClientRect();
        x += fr.left + f.clientLeft;
        y += fr.top + f.clientTop;
        out.cover = coverAt(f.ownerDocument, x, y, f);
      }
      out.x = x;
      out.y = y;
      const fit = !out.cover && !out.disabled && req.clear ? fitting(el, req.value) : null;
      if (fit && !fit.set) return Object.assign(out, fit);
      if (!out.cover && !out.disabled) {
        if (req.settle || req.submits) watchSubmit(win);
        watchLeave(win);
        const cross = !!req.settle && outOfProcess(win);
        if (req.press) watchPress(el, win, cross);
        if (cross || (req.settle && maySkip(shadowRoots()))) {
          watchHit(el, win);
          out.verify = true;
        }
        if (req.focus || req.clear) {
          el.focus();
          const away = unfocused(el);
          if (away) return Object.assign(out, away);
        }
        if (fit) {
          setValue(el, req.value);
          out.done = true;
        } else if (req.clear && !fieldOf(el) && el.isContentEditable) {
          // An editor's text is selected, and the typing (or, to empty
          // it, a Backspace: see op "selected") replaces it through the
          // browser's own editing, as a person's does: an editor keeping
          // its text in a model of its own (Lexical, ProseMirror) would
          // put back a DOM emptied behind its back, and one that takes no
          // typing keeps what it held.
          const range = el.ownerDocument.createRange();
          range.selectNodeContents(el);
          const sel = el.ownerDocument.getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
        } else if (req.clear) {
          if (fieldOf(el)) el.value = ""; else el.textContent = "";
          el.dispatchEvent(new Event("input", { bubbles: true }));
        }
      }
      return out;
    };
    return (req.settle && !still ? (scrolled && maySkip(shadowRoots()) ? settle(10, 2) : settle(5, 1)) : Promise.resolve()).then(measure);
  };

  // Scrolling: `this` scrolls by itself when it is not the document and its
  // content overflows a box that does not show it all; else the page does.
  const scrollsItself = (el) => !!el && el !== el.ownerDocument.documentElement &&
    el.scrollHeight > el.clientHeight + 1 && getComputedStyle(el).overflowY !== "visible";
  const scrolledHeight = (el) => scrollsItself(el) ? el.scrollHeight : doc.documentElement.scrollHeight;
  // One screen (90% of it): whether anything moved, the scrolled height,
  // and whether its end is reached.
  const scrollScreen = (el) => {
    if (!scrollsItself(el)) {
      const before = scrollY;
      scrollBy(0, Math.max(innerHeight * 0.9, 100));
      const h = doc.documentElement.scrollHeight;
      return { moved: scrollY !== before, height: h, end: scrollY + innerHeight >= h - 2 };
    }
    const before = el.scrollTop;
    el.scrollBy(0, Math.max(el.clientHeight * 0.9, 50));
    return { moved: el.scrollTop !== before, height: el.scrollHeight, end: el.scrollTop + el.clientHeight >= el.scrollHeight - 2 };
  };

  // A native option a person can choose: not disabled (nor its group), not
  // hidden from the list.
  const choosable = (o) => !o.disabled && !o.hidden && !(o.parentElement && o.parentElement.tagName === "OPTGROUP" && o.parentElement.disabled);
  // A native <select>'s option chosen by value or label, input and change
  // fired: {native, done} | {native, names} (no such option) | {native,
  // off, can} (one a person cannot choose: why, and the names of those
  // that can be).
  const chooseNative = (el, value) => {
    const opts = Array.from(el.options || []);
    const o = opts.find((o) => o.value === value) || opts.find((o) => norm(o.label || o.text) === norm(value));
    const nameOf = (o) => norm(o.label || o.text);
    if (!o) return { native: true, names: opts.map(nameOf) };
    if (!choosable(o)) return { native: true, off: o.hidden ? "hidden" : "disabled", can: opts.filter(choosable).map(nameOf) };
    el.value = o.value;
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
    // The page's own script may take the choice back (a change it asks
    // about, the question dismissed): then it did not happen.
    if (el.value !== o.value) return { native: true, back: el.selectedOptions[0] ? nameOf(el.selectedOptions[0]) : "" };
    return { native: true, done: true };
  };

  // unrendered: how many more items the list els are part of holds than
  // the page drew, when the page says so twice: a grid that draws only the
  // rows in view (a virtualized table: AG Grid, MUI's DataGrid,
  // react-window, TanStack Virtual) tells its whole size by aria-rowcount
  // (a list's items by aria-setsize), and keeps the room of the rows it
  // did not draw (an element between the rows and the grid taller than the
  // rows drawn in it by more than two rows). A paginated table that tells
  // its total keeps no such room: its page is whole. Only when els lie in
  // two rows (or items) or more: a read of one row's cells (the header) is
  // whole. 0 when the page says no more, or does not tell (-1: not known).
  const unrendered = (els) => {
    const rows = new Set();
    for (const el of els) {
      const row = el.closest('[role="row"], tr, [aria-setsize]');
      if (row) rows.add(row);
      if (rows.size > 1) break;
    }
    if (rows.size < 2) return 0;
    const row = rows.values().next().value;
    let total, drawn, top;
    const grid = row.closest("[aria-rowcount]");
    if (grid) {
      total = parseInt(grid.getAttribute("aria-rowcount"), 10);
      drawn = [...grid.querySelectorAll('[role="row"], tr')];
      top = grid;
    } else {
      total = parseInt(row.getAttribute("aria-setsize") || "", 10);
      drawn = row.parentElement ? [...row.parentElement.children].filter((c) => c.hasAttribute("aria-setsize")) : [];
      top = row.parentElement && row.parentElement.parentElement;
    }
    if (!(total > drawn.length)) return 0;
    // The room kept for the rows not drawn.
    const boxes = drawn.map((d) => [d, d.getBoundingClientRect()]);
    const heights = boxes.map(([, r]) => r.height).filter((h) => h > 0);
    if (!heights.length) return 0;
    const rowH = Math.max(...heights);
    for (let a = row.parentElement, up = 0; a && a !== top && up < 4; a = a.parentElement, up++) {
      let lo = Infinity, hi = -Infinity;
      for (const [d, r] of boxes) {
        if (!a.contains(d)) continue;
        lo = Math.min(lo, r.top);
        hi = Math.max(hi, r.bottom);
      }
      if (hi > lo && a.getBoundingClientRect().height > hi - lo + 2 * rowH) return total - drawn.length;
    }
    return 0;
  };

  // extractOne reads one extract (op "extract"'s request r) in scope
  // root → its JSON text: the JSON of {found, from, count, rows, used,
  // unrendered (a list's, see unrendered)}, a line break, and the JSON
  // array of the values read, row by row, each row's fields in order (one
  // value per row without fields); used[f][i] is how many rows had field
  // f found by its locator i (the trace names the fallbacks). One string
  // crosses the protocol at a fraction of the cost of a tree of objects.
  const extractOne = (r, root) => withUnskipped(() => {
    allRows = null; // another extract's rows
    const m = first(r.from, root, r.many, false);
    const res = { found: !!m, from: m ? m.i : -1, count: 0, rows: 0, used: [] };
    let vals = [];
    if (m) {
      let els = m.els;
      res.count = els.length;
      if (r.list) res.unrendered = unrendered(els);
      if (!r.list) els = els.slice(0, 1);
      if (r.limit > 0 && els.length > r.limit) els = els.slice(0, r.limit);
      res.rows = els.length;
      const fields = r.fields || [];
      // Many cells: one style query per element that may declare how
      // text shows, not one per cell (see asIs).
      const cells = els.length * Math.max(1, fields.length);
      if (cells >= 100 && (fields.length === 0 ? r.attr === "text" : fields.some((f) => f.attr === "text"))) declares = declarers(4 * cells);
      if (fields.length === 0) {
        vals = els.map((el) => read(el, r.attr));
      } else {
        const nf = fields.length;
        vals = new Array(els.length * nf).fill(null);
        fields.forEach((f, j) => {
          const { cells, used } = cellsOf(els, f.locs);
          for (let k = 0; k < cells.length; k++) if (cells[k]) vals[k * nf + j] = read(cells[k], f.attr || r.attr);
          res.used.push(used);
        });
      }
    }
    return JSON.stringify(res) + "\n" + JSON.stringify(vals);
  });
  // keepsAll reports whether a field holding held kept every letter and
  // digit of typed, in order: what its script may rewrite (case, accents,
  // spaces and punctuation, a mask's added characters, a masking
  // character such as • in place of one) and what it threw away.
  const MASKING = "*\u2022\u25cf\u2219\u00b7\u25e6";
  const fold = (t) => t.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  const keepsAll = (typed, held) => {
    const have = [...fold(held)];
    let j = 0;
    for (const c of fold(typed)) {
      if (!/[\p{L}\p{N}]/u.test(c)) continue;
      while (j < have.length && have[j] !== c && !MASKING.includes(have[j])) j++;
      if (j >= have.length) return false;
      j++;
    }
    return true;
  };
  // readAll reads the extracts of reqs (op "extract"'s requests, in the
  // page's own document) in this one task → their texts, null for one that
  // threw.
  const readAll = (reqs) => reqs.map((r) => { try { return extractOne(r, null); } catch (e) { return null; } });

  switch (op) {
    case "scroll":
      return scrollScreen(root);

    case "select": {
      // A native <select>: choose by value or label at once. Else report
      // the ARIA listbox's state: {aria, open, names, listbox; off when
      // the option req.value is marked aria-disabled, can: the names of
      // the options that are not}.
      const el = root;
      if (el.tagName === "SELECT") return chooseNative(el, req.value);
      const lb = listboxOf(el);
      const opts = lb ? optionsOf(lb) : [];
      const offOpt = (o) => o.getAttribute("aria-disabled") === "true";
      const o = optionNamed(el, req.value);
      return { aria: true, open: !!lb && visible(lb), names: opts.map(accName), listbox: !!lb,
        off: o && offOpt(o) ? "disabled" : "", can: opts.filter((x) => !offOpt(x)).map(accName) };
    }

    case "option":
      return optionNamed(root, req.value);

    case "kept": {
      // After a click chose an ARIA option (this): → {back: the name of
      // the option its listbox marks chosen instead} when the option is
      // marked not chosen (aria-selected="false") and another one is, in
      // a listbox of one choice (the page's own script took the choice
      // back); else {} (kept, or the listbox does not say).
      const lb = root.isConnected && root.closest ? root.closest("[role=listbox]") : null;
      if (!lb || lb.getAttribute("aria-multiselectable") === "true" || root.getAttribute("aria-selected") !== "false") return {};
      const other = optionsOf(lb).find((x) => x !== root && x.getAttribute("aria-selected") === "true");
      return other ? { back: accName(other) } : {};
    }

    case "read":
      return read(root, req.attr);

    case "find": {
      let h = textual([req.loc]) ? withUnskipped(() => find(req.loc, root, req.many, req.visibleOnly, nodes)) : find(req.loc, root, req.many, req.visibleOnly, nodes);
      if (h && req.seen) { // only what a person sees (a wait's look from Go)
        const els = h.els.filter(seenEl);
        h = els.length ? { els, hidden: false } : null;
      }
      if (!h) return null;
      if ((!req.many || req.first) && h.els.length >= 1 && !h.hidden && (req.first || h.els.length === 1)) return h.els[0];
      const out = req.many ? h.els : h.els.slice(0, 1);
      out.count = h.els.length;
      out.hidden = h.hidden;
      return out;
    }

    case "extract":
      // req: {from: [loc], many, list, limit, attr, fields: [{name, locs, attr}]} (a field's attr overrides req's)
      return extractOne(req, root);

    case "reads":
      // req: {reads: [extract request]}: several extracts of the page's
      // own document in one look → [text | null] (see extractOne).
      return readAll(req.reads);

    case "prepare":
      // A fill's element is the one it types into (see typingTarget).
      if (req.clear && root && root.isConnected) {
        const t = typingTarget(root);
        return isEl(t) ? prepareEl(t, req) : t;
      }
      return prepareEl(root, req);

    case "reach": {
      // Why a present element never showed (this: the element): drawn by
      // CSS but without a size, no pointer can reach it → {zero}.
      const r = root.getBoundingClientRect();
      const drawn = root.checkVisibility ? root.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true }) : true;
      return { zero: drawn && !(r.width >= 1 && r.height >= 1) };
    }

    case "hit": {
      // After the mouse moved to prepare's point (this: the element, or the
      // window after op "ready"): → {hit, what (where it went instead)}.
      // No move seen may still come late: wait two frames (or 100ms) for
      // it; then one that went to another process never comes. A move to
      // where the mouse already is may fire nothing: the element under the
      // mouse (:hover) then tells.
      const w = (root ? root.ownerDocument : doc).defaultView;
      const rec = w[HIT];
      if (!rec) return { hit: false };
      const answer = () => {
        rec.off();
        if (rec.hit === null) return { hit: rec.el.isConnected && rec.el.matches(":hover") };
        return { hit: rec.hit, what: rec.what };
      };
      if (rec.hit !== null) return answer();
      return new Promise((resolve) => {
        let done = false;
        const fin = () => { if (!done) { done = true; resolve(answer()); } };
        setTimeout(fin, 100);
        requestAnimationFrame(() => requestAnimationFrame(fin));
      });
    }

    case "unrendered":
      // A list read element by element (role locators): this, its first
      // item, and its last (nodes[0]) → how many more items the page says
      // the list holds than it drew (see unrendered).
      return unrendered([root, ...nodes]);

    case "focused": {
      // Before Enter is pressed without a target: the element the key goes
      // to (the focus, through open shadow roots and same-origin frames),
      // its window's form submits watched as a press in a target watches
      // them (see watchSubmit) → the element, or null when the focus is on
      // none (the page's body).
      // (A frame from another origin has no contentDocument: the focus
      // stops at its <iframe>.)
      const inner = (e) => (e.shadowRoot && e.shadowRoot.activeElement) || (e.tagName === "IFRAME" && e.contentDocument && e.contentDocument.activeElement) || null;
      let a = doc.activeElement;
      for (let next; a && (next = inner(a)); ) a = next;
      if (!a || a === a.ownerDocument.body || a === a.ownerDocument.documentElement) return null;
      watchSubmit(a.ownerDocument.defaultView);
      return a;
    }

    case "selected":
      // Before a fill empties an editor (this): is its text selected (by
      // prepare), for a Backspace to delete? → bool
      return !fieldOf(root) && root.isContentEditable && !root.ownerDocument.getSelection().isCollapsed;

    case "unsent":
      // After Enter was pressed in a field (this): → what the browser
      // refused when it did not send the field's form (see refused).
      return refused(root.form, root.ownerDocument.defaultView);

    case "pressed": {
      // After a click's press and release (this: the element, or the
      // window after op "ready"): → {missed, released, what (where it went
      // instead)}: missed when the guard held the press back, released
      // when it held back a click the release took elsewhere (see PRESS),
      // away when no press came on a page with frames from other sites
      // (one of them took it). No record (a new document: the click
      // navigated) is not a miss; nor is no press seen on a page without
      // such frames (a capturing listener of the page's own, registered
      // first, may stop it from reaching the guard: the page had it).
      return pressedOn((root ? root.ownerDocument : doc).defaultView);
    }

    case "ready": {
      // A one-element target looked for once (its locators in order, the
      // first visible match) and, when found, prepared in the same call:
      // → {missing} | prepare's answer with i, the locator that matched.
      // req: {locs, focus, clear, settle, off, probe, choose}: with off a
      // "disabled" class counts as disabled too (paginate's next), with
      // probe nothing is prepared (is it there, is it enabled), with
      // choose (a value) a native <select> readied has that option chosen
      // as op "select" does: chosen is its answer ({aria} for another
      // element, left as it was). With mark (the locators of a many
      // target, or [] for the body), its first match (the body when none)
      // is kept on the window under MARK, and its text and the URL are
      // read as well: the state a click must change (paginate; see the
      // "changed" condition).
      const m = textual(req.locs) ? withUnskipped(() => first(req.locs, null, false, true)) : first(req.locs, null, false, true);
      if (!m) return { missing: true };
      const el = m.els[0];
      const off = isDisabled(el) || (!!req.off && el.classList.contains("disabled"));
      if (off || req.probe) return { i: m.i, disabled: off };
      return Promise.resolve(prepareEl(el, req)).then((out) => {
        out.i = m.i;
        if (req.choose != null && !out.gone && !out.background && !out.unreachable && !out.cover && !out.disabled) {
          out.chosen = el.tagName === "SELECT" ? chooseNative(el, req.choose) : { aria: true };
        }
        // With arm, the page's follow hook follows what the click about
        // to come sets going (a "settled" condition with follow waits
        // for it instead of a window).
        if (req.arm && !out.gone && !out.background && doc.defaultView[FOLLOW]) doc.defaultView[FOLLOW].arm();
        if (req.mark && !out.gone && !out.background) {
          const mk = req.mark.length === 0 ? null : textual(req.mark) ? withUnskipped(() => first(req.mark, null, true, false)) : first(req.mark, null, true, false);
          const mel = mk ? mk.els[0] : doc.body;
          Object.defineProperty(doc.defaultView, MARK, { value: mel, configurable: true });
          out.url = location.href;
          out.text = mel ? mel.innerText : "";
          out.marked = true;
        }
        return out;
      });
    }

    case "crossframes":
      return crossFrames(doc, false);

    case "late": {
      // After a click: did it submit a form that the page held back
      // (preventDefault), and has the page begun a navigation since?
      // With req.idle, once the page has nothing left to run (an idle
      // callback): the continuations of the requests it saw end have run
      // by then, however long they take. → {held, ago (ms), leaving,
      // invalid}: invalid, for a held submit, the form's first control its
      // page marks invalid (flagged).
      // A submit about to navigate (submitPending) is answered once the
      // navigation began, at most req.submit ms from now (the page may
      // still cancel it in ways it cannot tell: an intercept).
      const win = doc.defaultView;
      const answer = () => {
        const rec = win[SUBMIT];
        const out = rec && rec.ev ? { held: rec.ev.defaultPrevented, ago: performance.now() - rec.at } : { held: false };
        if (out.held) out.invalid = flagged(rec.ev.target);
        out.leaving = leaving(win[LEAVE]);
        return out;
      };
      const settled = () => {
        if (!submitPending(win)) return answer();
        return new Promise((resolve) => {
          const nav = navigationOf(win);
          const type = nav ? "navigate" : "beforeunload";
          const done = () => {
            clearTimeout(timer);
            (nav || win).removeEventListener(type, done);
            resolve(answer());
          };
          const timer = setTimeout(done, req.submit);
          (nav || win).addEventListener(type, done);
        });
      };
      if (req.follow) {
        // What the step set going, followed by the page's follow hook
        // (engine/browser/follow.js) until it has run, or until the page
        // begins to leave (its reactions then never run here).
        const f = win[FOLLOW];
        if (!f) return Object.assign(answer(), { hooked: false });
        return followed(win, f, "act", req.follow, req.soon).then(async (q) => Object.assign(await settled(), { hooked: true }, q));
      }
      if (!req.idle) return settled();
      return new Promise((resolve) => {
        if (win.requestIdleCallback) win.requestIdleCallback(() => resolve(settled()), { timeout: req.idle });
        else setTimeout(() => resolve(settled()), 0);
      });
    }

    case "errorbox": {
      // After a form was answered with a page (HTTP 2xx to its POST):
      // does that page show the form again with an error box, as
      // server-rendered apps do when they refuse what was sent (Rails'
      // error_explanation and field_with_errors, Django's errorlist,
      // Bootstrap's alert-danger and is-invalid, an alert region)? → the
      // box's text (clipped), or "" when the page shows none or holds no
      // form.
      if (!doc.querySelector("form")) return "";
      const boxes = '#error_explanation, .errorlist, .errors, .error-message, .form-errors, .alert-danger, .alert-error, ' +
        '.notice-error, .notice--error, [role=alert], .field_with_errors, .has-error, .is-invalid, [aria-invalid="true"]';
      const ok = /(^|\s)(alert-success|alert-info|notice-success|success|info)(\s|$)/;
      for (const el of doc.querySelectorAll(boxes)) {
        if (ok.test(el.className || "") || !visible(el)) continue;
        const box = el.matches("input, select, textarea") ? flagged(el.form) : null;
        const text = box ? box.what + (box.message ? ": " + box.message : "") : norm(shown(el));
        if (text) return text.slice(0, 300);
      }
      return "";
    }

    case "took": {
      // After files were put into a file input (this) that the page then
      // emptied: did it take them (uploaders empty their input so the
      // same file can be chosen again)? → {said: the page asked a person
      // something since req.said (its count of dialogs, op "took" without
      // req.names), shown: it shows every name beside the input or in an
      // upload list, busy: it has work the step set going still pending}.
      const hook = doc.defaultView[FOLLOW];
      if (!req.names) return { said: hook ? hook.said() : -1 };
      const body = norm(doc.body ? doc.body.innerText : "");
      return {
        said: !!hook && req.said >= 0 && hook.said() > req.said,
        shown: req.names.every((n) => shownBeside(root, n) || body.includes(norm(n))),
        busy: !!hook && hook.pending("act") > 0,
      };
    }

    case "quiet": {
      // After a document loaded: what its scripts set going while it
      // loaded, followed until it has run (at most req.max ms). → {hooked,
      // waited, idle, left} ({hooked: false} without the hook).
      const win = doc.defaultView;
      const f = win[FOLLOW];
      if (!f) return { hooked: false };
      return followed(win, f, "load", req.max).then((q) => Object.assign({ hooked: true }, q));
    }

    case "unskip":
      // Before the accessibility tree is read: the document itself when
      // nothing is skipped, else its root element, with skipped content
      // rendered until op "reskip" (the same subtree for the tree's query).
      return unskip() ? (Object.defineProperty(doc.defaultView, CV + "_held", { value: unskipped, configurable: true }), doc.documentElement) : doc;

    case "reskip": {
      const w = doc.defaultView;
      reskip(w[CV + "_held"]);
      delete w[CV + "_held"];
      return true;
    }

    case "typing": {
      // A one-element target looked for once like op "ready" and, found by
      // its first locator, readied for typing in the same call: in view,
      // enabled, not covered, focused, its value cleared with req.clear.
      // → the element itself (the input that follows fires its events on
      // it), else the state as JSON text: {missing} | {fallback, i} (found
      // by locator i: not readied, the Go side asks for that one alone) |
      // {disabled} | {cover} | {gone} | {background} | {toolong, len} |
      // {rejected, kept} | {done} (req.value is set: see prepareEl).
      const m = textual(req.locs) ? withUnskipped(() => first(req.locs, null, false, true)) : first(req.locs, null, false, true);
      if (!m) return JSON.stringify({ missing: true });
      if (m.i > 0) return JSON.stringify({ fallback: true, i: m.i });
      let el = m.els[0];
      if (req.clear) {
        const t = typingTarget(el);
        if (!isEl(t)) return JSON.stringify(t);
        el = t;
      }
      if (unusable(el, req.clear)) return JSON.stringify({ disabled: true });
      return Promise.resolve(prepareEl(el, { focus: true, clear: !!req.clear, value: req.value, submits: !!req.submits })).then((out) => {
        if (out.background || out.gone || out.notfield || out.unfocused || out.inert || out.cover || out.disabled || out.toolong !== undefined || out.rejected || out.done) return JSON.stringify(out);
        // With req.secret (the mark's name), what is typed next is a
        // secret: marked before it is typed (op "secret").
        if (req.secret) markSecret(el, req.secret);
        return el;
      });
    }

    case "secret":
      // Mark this element, about to be typed a secret into, and the
      // deepest element focused in its document (an editor's inner node)
      // when that is not the body, with the attribute req.mark: the live
      // view and screenshots draw them masked, whatever they hold.
      markSecret(this, req.mark);
      return true;

    case "events": {
      // Fire events on the element a fill of this typed into (see
      // typingTarget) after typing: input, change. With req.typed (the
      // value typed): → {emptied} when a field's own script left it
      // holding nothing of it, {partial, held} when it threw some of its
      // letters or digits away (held: what the field holds, null for a
      // password); editor: true for an editable element (its text is
      // what it holds; an emptied one still holding text is partial).
      // An emptied field whose page said nothing (no dialog as the
      // events ran) and drew the value typed elsewhere as they ran took
      // it there (a tag field's chip): {} then.
      const t = typingTarget(root);
      if (isEl(t)) root = t;
      const hook = doc.defaultView[FOLLOW];
      const asked = hook ? hook.said() : 0;
      const mo = new MutationObserver(() => {});
      mo.observe(doc, { childList: true, subtree: true, characterData: true });
      for (const name of req.names) {
        root.dispatchEvent(name === "keyup" ? new KeyboardEvent(name, { key: req.key, bubbles: true, composed: true }) : new Event(name, { bubbles: true }));
      }
      const changes = mo.takeRecords();
      mo.disconnect();
      const field = fieldOf(root), editor = !field && root.isContentEditable;
      if ((!field && !editor) || req.typed === undefined) return {};
      const held = field ? root.value : root.innerText.trim();
      if (req.typed === "") return editor && held !== "" ? { partial: true, held, editor } : {};
      if (held === "" && field && !(hook && hook.said() > asked) && drew(changes, req.typed)) return {};
      if (held === "") return { emptied: true, editor };
      return keepsAll(req.typed, held) ? {} : { partial: true, held: root.type === "password" ? null : held, editor };
    }

    case "wait": {
      // req: {conds: [cond], timeout (ms)}; cond: {kind: "visible"|"hidden"|"count", locs, many, min}
      //   | {kind: "text", text} | {kind: "url", re} | {kind: "changed", url, text, mark} (this: the old element; with mark, the one op "ready" kept)
      //   | {kind: "unmarked"} (no element kept by op "ready": another document)
      //   | {kind: "enabled", writable} (this: the element; writable: not read-only either) | {kind: "idle", quiet (ms)}
      //   | {kind: "grown", height} (this: the scrolled element, or the window for the page)
  //   | {kind: "settled", quiet (ms), url} (loaded, no DOM change for quiet, the URL no longer url)
      // With req.scroll ({more}), the answer is {i, screen}: when the page
      // grew (a "grown" condition) and more is set, the next screen is
      // scrolled in the same task, before anything else runs, and screen
      // is what it did (an infinite list starts loading its next batch
      // without a round trip). Targets are searched in the scrolled
      // element's document, so a scroll condition on targets is only
      // answered when that is the top document (an element of a
      // same-origin frame may come here through the top window).
      if (req.scroll && req.conds.some((c) => c.locs)) {
        let top = null;
        try { top = window.top.document; } catch (e) { top = null; } // another site's frame
        if (doc !== top) return null;
      }
      // With req.pressed, first what the click just pressed came to (op
      // "pressed"): a press the guard held back answers {pressed} at once.
      if (req.pressed) {
        const pr = pressedOn(doc.defaultView);
        if (pr.missed) return { pressed: pr };
      }
      const old = root;
      let idleSince = performance.now();
      let changedAt = performance.now(); // the last mutation seen (or the start)
      const win = doc.defaultView;
      const settling = req.conds.some((c) => c.kind === "settled");
      const clock = settling && win[CLOCK];
      if (clock) {
        changedAt = clock.at;
        clock.obs.disconnect();
        delete win[CLOCK];
      }
      // A settled condition not yet holding wakes the wait when its quiet
      // would be over (rather than at the next poll).
      let wake = null;
      let wakeIn = () => {};
      // The settled condition's list: its rows' text, and since when.
      let listSig = null;
      let listSince = 0;
      const holds = (c) => {
        switch (c.kind) {
          case "present": return !!first(c.locs, c.within ? old : null, c.many, false);
          case "visible": return seenIn(first(c.locs, c.within ? old : null, c.many, true)) > 0;
          case "hidden": return seenIn(first(c.locs, c.within ? old : null, c.many, true)) === 0;
          case "count": return seenIn(first(c.locs, null, true, true)) >= c.min;
          case "text": {
            const want = norm(c.text);
            const seen = new Set();
            const inDoc = (d) => {
              if (!d || seen.has(d)) return false;
              seen.add(d);
              const b = d.body || d.documentElement;
              if (!b) return false;
              let t = b.innerText || "";
              for (const h of all(b)) if (h.shadowRoot && drawn(h)) t += " " + shownText(h.shadowRoot);
              if (norm(t).includes(want)) return true;
              for (const f of all(b)) {
                if (f.tagName !== "IFRAME" && f.tagName !== "FRAME") continue;
                let fd = null;
                try { fd = f.contentDocument; } catch (e) { fd = null; }
                if (inDoc(fd)) return true;
              }
              return false;
            };
            return inDoc(doc);
          }
          case "url": {
            const re = new RegExp(c.re);
            return re.test(location.href) || (c.path && re.test(location.pathname + location.search + location.hash));
          }
          case "changed": {
            // With mark, the element op "ready" kept: none on the window
            // means another document ("unmarked").
            const o = c.mark ? doc.defaultView[MARK] : old;
            if (c.mark && o === undefined) return false;
            return location.href !== c.url || !o || !o.isConnected || (o.innerText || "") !== c.text;
          }
          case "unmarked": return doc.defaultView[MARK] === undefined;
          case "enabled": return !!old && !unusable(old, c.writable);
          case "option": return !!old && !!optionNamed(old, c.value);
          case "grown": return scrolledHeight(old) !== c.height;
          // The page arrived (the document is past loading: see check) and
          // its DOM has not changed for c.quiet ms; not while it still has
          // the URL c.url (a document about to be replaced). With c.list,
          // the rows a next page shows: once they have not changed for
          // c.steady ms, though the rest of the page may never stand
          // still; while there is no row, once none has come for
          // c.steadyEmpty ms (a list just emptied is most often still to
          // be drawn), however the rest of the page moves.
          case "settled": {
            if (c.url && location.href === c.url) return false;
            if (c.followed) return true;
            const now = performance.now();
            let left = c.quiet - (now - changedAt);
            if (c.list) {
              const m = first(c.list, null, true, false);
              const sig = m ? m.els.length + "\n" + m.els.map((e) => e.textContent).join("\n") : "";
              if (sig !== listSig) {
                listSig = sig;
                listSince = now;
              }
              const still = now - listSince;
              left = m ? Math.min(left, c.steady - still) : c.steadyEmpty - still;
            }
            if (left > 0) wakeIn(left);
            return left <= 0;
          }
          case "idle": {
            const busy = performance.getEntriesByType("resource").some((e) => e.responseEnd === 0);
            if (busy) idleSince = performance.now();
            return performance.now() - idleSince >= c.quiet;
          }
        }
        return false;
      };
      const check = () => {
        // A document still being parsed is not what a person sees yet: its
        // own scripts have not run (a span filled by the script below it).
        if (doc.readyState === "loading") return -1;
        const each = () => {
          for (let i = 0; i < req.conds.length; i++) {
            try { if (holds(req.conds[i])) return i; } catch (e) { /* broken locator: never holds */ }
          }
          return -1;
        };
        return unskipFor ? withUnskipped(each) : each();
      };
      const unskipFor = req.conds.some((c) => c.kind === "text" || textual(c.locs) || textual(c.list));
      // With req.reads (extract requests, the page's own document), the
      // answer once a condition held is {i, reads}: those extracts read in
      // the same task as the look that saw it hold (readAll).
      const answer = (i) => {
        if (i >= 0 && req.conds[i].kind === "changed") {
          if (win[CLOCK]) win[CLOCK].obs.disconnect();
          const kept = { at: changedAt };
          kept.obs = domChanges(doc, new MutationObserver(() => { kept.at = performance.now(); }));
          win[CLOCK] = kept;
        }
        if (req.reads && i >= 0) return { i, reads: readAll(req.reads) };
        if (!req.scroll) return i;
        const grew = i >= 0 && req.conds[i].kind === "grown";
        return { i, screen: grew && req.scroll.more ? scrollScreen(old) : null };
      };
      const look = () => {
        const now = check();
        if (now >= 0 || req.timeout <= 0) return answer(now);
        return new Promise((resolve) => {
          let done = false;
          const finish = (i) => {
            if (done) return;
            done = true;
            obs.disconnect();
            clearTimeout(timer);
            clearTimeout(wake);
            clearInterval(tick);
            removeEventListener("popstate", again);
            removeEventListener("hashchange", again);
            soon.port1.close();
            resolve(answer(i));
          };
          let queued = false;
          // Mutations are checked once the task that made them is over (a
          // message to ourselves runs after its microtasks: a framework's
          // batched render is complete, and layout queries are current),
          // at most once per batch of mutations; a poll covers what no
          // mutation shows (CSS transitions, pushState, network quiet, frames).
          const soon = new MessageChannel();
          soon.port1.onmessage = () => { queued = false; if (done) return; const i = check(); if (i >= 0) finish(i); };
          const again = () => {
            if (queued || done) return;
            queued = true;
            soon.port2.postMessage(0);
          };
          const obs = domChanges(doc, new MutationObserver(() => { changedAt = performance.now(); again(); }));
          wakeIn = (ms) => {
            clearTimeout(wake);
            wake = setTimeout(again, ms + 1);
          };
          if (settling) again(); // arms the wake
          addEventListener("popstate", again);
          addEventListener("hashchange", again);
          doc.addEventListener("DOMContentLoaded", again);
          const tick = setInterval(() => { const i = check(); if (i >= 0) finish(i); }, req.poll || 50);
          const timer = setTimeout(() => finish(-1), req.timeout);
        });
      };
      // A settled condition with follow (ms): on a page whose follow hook
      // followed the click that changed it (op "ready" with arm), the page
      // has arrived once what the click set going has run (its timers,
      // requests, renders): it holds then, with no quiet to wait out. When
      // the hook ran out of time or the page began to leave, the windows
      // above apply.
      const after = req.conds.find((c) => c.kind === "settled" && c.follow);
      if (after && win[FOLLOW]) {
        return followed(win, win[FOLLOW], "act", Math.min(after.follow, req.timeout)).then((q) => {
          if (!q.idle && !q.leaving) after.followed = true;
          req.timeout = Math.max(0, req.timeout - (q.waited || 0));
          return look();
        });
      }
      return look();
    }
  }
  throw new Error("unknown op " + op);
}
