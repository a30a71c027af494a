// The follow hook: what the page's own scripts set going, followed in the
// page's main world from before any of its scripts runs (installed with
// the popup rule on every document of an environment's page).
//
// A cause is what the engine waits on: the document's loading (its
// scripts, up to the end of its load event) and each acting step (armed by
// page.js before the step's input; the input events dispatched while it
// is armed: the browser's, and those the engine fires after typing). What runs
// under a cause and sets work going makes that work the cause's too:
//   - a timer (setTimeout; setInterval's first run) set for at most
//     HORIZON ms (and due within REACH of the cause's start), and an
//     animation frame;
//   - a message to a MessageChannel port or to the window itself (React's
//     and Vue's schedulers), a fetch and the reading of its body, an
//     XMLHttpRequest until it ended;
//   - and so on, MAXGEN rounds deep: what a followed callback sets going,
//     and what runs in the promise reactions (microtasks) of that callback,
//     until the next task.
// A callback that schedules itself again (a poll, an animation loop) is
// followed once, and a timer set for longer than HORIZON, a WebSocket's or a
// worker's messages, an EventSource are not followed at all. The engine
// asks quiet(kind, max): a promise of {waited, idle, left} once nothing of
// the cause is pending (or max ms passed: idle, with what was left).
// Navigations are the browser's to report (the engine follows them over
// CDP): this hook only follows work inside the document.
(() => {
  const KEY = "__toolwright_follow";
  if (Object.prototype.hasOwnProperty.call(window, KEY)) return;
  const HORIZON = 2000; // a timer set for longer is not followed
  const REACH = 3000; // nor one due later than this after its cause began
  // A document's own timers are followed for its first second only: a
  // page's start-up (a timer that fills or empties a field) is, a
  // framework's deferred work (MediaWiki's modules, a poll) is not.
  const LOAD_REACH = 1000;
  const LATER_MAX = 500; // the longest timer followed that a followed callback sets
  const MAXGEN = 6;
  const FRAME_MAX = 250; // a frame the page never draws (a tab at the back) is not waited for longer
  const MESSAGE_MAX = 250; // nor a message nobody here takes (a port handed to a frame or a worker)
  const UI = new Set(["click", "mousedown", "mouseup", "pointerdown", "pointerup", "dblclick", "auxclick", "contextmenu",
    "keydown", "keyup", "keypress", "beforeinput", "input", "change", "submit", "reset", "select",
    "compositionstart", "compositionend", "paste", "cut", "drop", "focus", "blur", "focusin", "focusout"]);
  const now = () => performance.now();
  const native = {
    setTimeout: window.setTimeout, clearTimeout: window.clearTimeout,
    setInterval: window.setInterval, clearInterval: window.clearInterval,
    raf: window.requestAnimationFrame, caf: window.cancelAnimationFrame,
    fetch: window.fetch, post: window.postMessage,
    MessageChannel: window.MessageChannel,
  };
  const apply = Reflect.apply;

  // A cause: its items still pending, the promises waiting for quiet.
  const newCause = (kind) => ({ kind, at: now(), pending: new Set(), waiters: [] });
  const causes = { load: newCause("load"), act: null };
  let loading = true; // the document's scripts run under the load cause until its load event is done
  let cur = null; // the item (or {cause, gen: 0}) whose callback or reactions run now
  let armed = null; // the act cause while its step's input is dispatched

  // The reset of cur after a followed callback: once its reactions ran
  // (the next task). A port of our own, which the page never sees.
  const resetPort = new native.MessageChannel();
  let resetFor = null;
  resetPort.port1.onmessage = () => {
    if (cur === resetFor) cur = loading ? { cause: causes.load, gen: 0 } : null;
    resetFor = null;
  };
  const leaveSoon = (item) => {
    resetFor = item;
    resetPort.port2.postMessage(0);
  };
  if (loading) cur = { cause: causes.load, gen: 0 };

  // current is the context work set going now belongs to, or null. An
  // input event's listeners run with window.event set, and so do the
  // promise reactions they leave (the microtask checkpoint comes before
  // the event is put back: React's render after a click, an async
  // handler's continuation).
  const current = () => {
    const e = window.event;
    if (armed && e && UI.has(e.type)) return { cause: armed, gen: 0 };
    return cur;
  };
  // sourceOf is fn's source text (its first 300 characters), what two
  // closures of the same code share.
  const fnText = Function.prototype.toString;
  const sourceOf = (fn) => {
    try {
      return apply(fnText, fn, []).slice(0, 300);
    } catch (e) {
      return "";
    }
  };
  // track makes an item of kind in the current context, or null.
  const track = (kind, fn, delay) => {
    const c = current();
    if (!c || c.gen >= MAXGEN || !c.cause.pending) return null;
    if (delay !== undefined && (delay > HORIZON || now() + delay > c.cause.at + (c.cause.kind === "load" ? LOAD_REACH : REACH))) return null;
    // A long timer set by what an input set going (not by its handler):
    // a message that hides itself, a poll after the answer came. Short
    // ones are the work going on (a redraw after a render).
    if (delay !== undefined && c.gen >= 1 && delay > LATER_MAX) return null;
    // A callback that schedules itself again, directly or through a
    // request (a poll, an animation loop), or a new closure of the same
    // code (setTimeout(() => poll(), 1000)): followed once.
    const src = fn ? sourceOf(fn) : "";
    for (let p = c; fn && p; p = p.parent) {
      if (p.fn === fn || (p.src && p.src === src)) return null;
    }
    const item = { cause: c.cause, gen: c.gen + 1, kind, fn, src, parent: c.kind ? c : null, at: now(), due: delay === undefined ? 0 : now() + delay };
    c.cause.pending.add(item);
    return item;
  };
  // done ends item; the cause's waiters are told, after the reactions of
  // what ends now have run (a task later), once nothing they wait for is
  // pending.
  const done = (item) => {
    if (!item || !item.cause.pending.delete(item)) return;
    if (item.cause.waiters.length) check(item.cause);
  };
  // left is how many of cause's pending items waiter w waits for: all of
  // them, or (w.soon) all but the timers due later than w.soon ms after
  // it began to wait.
  const left = (cause, w) => {
    if (w.soon === undefined) return cause.pending.size;
    let n = 0;
    for (const i of cause.pending) if (!(i.kind === "timer" && i.due > w.start + w.soon)) n++;
    return n;
  };
  const check = (cause) => {
    native.setTimeout.call(window, () => {
      const ws = cause.waiters;
      cause.waiters = ws.filter((w) => left(cause, w) > 0);
      for (const w of ws) if (left(cause, w) === 0) w.fin(false);
    }, 0);
  };
  // run calls fn under item, then ends item.
  const run = (item, fn, self, args) => {
    cur = item;
    try {
      return apply(fn, self, args);
    } finally {
      done(item);
      leaveSoon(item);
    }
  };
  const define = (obj, name, value) => {
    try {
      Object.defineProperty(obj, name, { value, writable: true, configurable: true, enumerable: false });
    } catch (e) {
      // a frozen object: not followed
    }
  };
  // wrap replaces obj[name] with a function of the same name and length
  // that calls make(original) (a Proxy keeps its native source text).
  const wrap = (obj, name, make) => {
    const orig = obj && obj[name];
    if (typeof orig !== "function") return;
    const h = make(orig);
    define(obj, name, new Proxy(orig, { apply: (f, self, args) => h(self, args) }));
  };

  // Timers and frames: set (its first run followed), and cancelled.
  const timers = new Map(); // id → item
  const frames = new Map();
  const schedule = (name, kind, ids) => wrap(window, name, (orig) => (self, args) => {
    const [fn, ms] = args;
    let item = typeof fn === "function" ? track(kind, fn, kind === "timer" ? Math.max(0, Number(ms) || 0) : undefined) : null;
    if (!item) return apply(orig, self, args);
    if (kind === "frame") native.setTimeout.call(window, () => done(item), FRAME_MAX);
    const id = apply(orig, self, [function (...given) {
      const first = item;
      item = null; // setInterval's later runs are not followed
      ids.delete(id);
      return first ? run(first, fn, this, args.length > 2 ? args.slice(2) : given) : apply(fn, this, args.slice(2));
    }, ...args.slice(1)]);
    ids.set(id, item);
    return id;
  });
  const cancel = (name, ids) => wrap(window, name, (orig) => (self, args) => {
    done(ids.get(args[0]));
    ids.delete(args[0]);
    return apply(orig, self, args);
  });
  schedule("setTimeout", "timer", timers);
  schedule("setInterval", "timer", timers);
  schedule("requestAnimationFrame", "frame", frames);
  cancel("clearTimeout", timers);
  cancel("clearInterval", timers);
  cancel("cancelAnimationFrame", frames);

  // Messages: to a MessageChannel's port (its peer's handler runs the
  // item) and to the window itself (setImmediate's shims). Only a message
  // this document will take is followed: to a port whose peer was started
  // here (its onmessage set, or start() called), or to this window for its
  // own origin; and none longer than MESSAGE_MAX (the peer handed to a
  // frame or a worker after it started).
  const peers = new WeakMap();
  const queued = new WeakMap(); // port → items, in order
  const started = new WeakSet(); // ports whose messages are delivered here
  const expire = (item) => {
    if (item) native.setTimeout.call(window, () => done(item), MESSAGE_MAX);
    return item;
  };
  if (native.MessageChannel) {
    const MC = native.MessageChannel;
    const Channel = function MessageChannel() {
      if (!new.target) return apply(MC, this, []); // throws as the native one does
      const c = new MC();
      peers.set(c.port1, c.port2);
      peers.set(c.port2, c.port1);
      return c;
    };
    Channel.prototype = MC.prototype;
    define(window, "MessageChannel", Channel);
    const MP = window.MessagePort && window.MessagePort.prototype;
    wrap(MP, "postMessage", (orig) => (self, args) => {
      const to = peers.get(self);
      const item = to && started.has(to) ? expire(track("message")) : null;
      if (item) {
        if (!queued.has(to)) queued.set(to, []);
        queued.get(to).push(item);
      }
      return apply(orig, self, args);
    });
    // A handler of a port runs the oldest item posted to it.
    const handlers = new WeakMap();
    const handlerOf = (port, h) => {
      if (typeof h !== "function") return h;
      if (!handlers.has(h)) {
        handlers.set(h, function (e) {
          const q = queued.get(port);
          const item = q && q.shift();
          return item ? run(item, h, this, [e]) : apply(h, this, [e]);
        });
      }
      return handlers.get(h);
    };
    const d = MP && Object.getOwnPropertyDescriptor(MP, "onmessage");
    if (d && d.set) {
      const given = new WeakMap();
      Object.defineProperty(MP, "onmessage", {
        configurable: true, enumerable: d.enumerable,
        get() { return given.has(this) ? given.get(this) : apply(d.get, this, []); },
        set(h) {
          given.set(this, h);
          if (typeof h === "function") started.add(this); // setting onmessage starts the port
          apply(d.set, this, [handlerOf(this, h)]);
        },
      });
    }
    wrap(MP, "start", (orig) => (self, args) => {
      started.add(self);
      return apply(orig, self, args);
    });
    wrap(MP, "addEventListener", (orig) => (self, args) => apply(orig, self, args[0] === "message" ? [args[0], handlerOf(self, args[1]), ...args.slice(2)] : args));
    wrap(MP, "removeEventListener", (orig) => (self, args) => apply(orig, self, args[0] === "message" && typeof args[1] === "function" && handlers.has(args[1]) ? [args[0], handlers.get(args[1]), ...args.slice(2)] : args));
  }
  const selfPosts = [];
  // A message to this window for another origin is dropped by the browser.
  const ownOrigin = (to) => {
    if (typeof to === "object" && to !== null) to = to.targetOrigin; // postMessage(msg, {targetOrigin})
    return to === undefined || to === "*" || to === "/" || String(to) === location.origin;
  };
  wrap(window, "postMessage", (orig) => (self, args) => {
    const item = self === window && ownOrigin(args[1]) ? expire(track("message")) : null;
    if (item) selfPosts.push(item);
    return apply(orig, self, args);
  });
  window.addEventListener("message", (e) => {
    if (e.source !== window || !selfPosts.length) return;
    const item = selfPosts.shift();
    // The page's listeners run after this one, in this dispatch: under item.
    cur = item;
    done(item);
    leaveSoon(item);
  }, true);

  // Requests: a fetch until it settled, then its reactions; reading its
  // body the same; an XMLHttpRequest until loadend, its handlers under it.
  const settle = (item, p) => p.then((v) => {
    cur = item;
    done(item);
    leaveSoon(item);
    return v;
  }, (err) => {
    cur = item;
    done(item);
    leaveSoon(item);
    throw err;
  });
  if (native.fetch) {
    wrap(window, "fetch", (orig) => (self, args) => {
      const item = track("request");
      const p = apply(orig, self, args);
      return item ? settle(item, p) : p;
    });
    const RP = window.Response && window.Response.prototype;
    for (const name of ["json", "text", "blob", "arrayBuffer", "formData"]) {
      wrap(RP, name, (orig) => (self, args) => {
        const item = track("request");
        const p = apply(orig, self, args);
        return item ? settle(item, p) : p;
      });
    }
  }
  const XP = window.XMLHttpRequest && window.XMLHttpRequest.prototype;
  if (XP) {
    const sent = new WeakMap(); // xhr → item
    const first = new WeakSet(); // xhrs whose readystatechange this hook heard first
    // The hook's listeners go on before the page's: at open (a page sets
    // its handlers after open, mostly) and, for one set before, the
    // handler property is wrapped.
    const hear = (xhr) => {
      if (first.has(xhr)) return;
      first.add(xhr);
      xhr.addEventListener("readystatechange", () => {
        const item = sent.get(xhr);
        if (item && xhr.readyState === 4) {
          cur = item;
          leaveSoon(item);
        }
      });
      xhr.addEventListener("loadend", () => {
        const item = sent.get(xhr);
        sent.delete(xhr);
        if (item) done(item);
      });
    };
    for (const name of ["onreadystatechange", "onload"]) {
      const d = Object.getOwnPropertyDescriptor(XP, name) || Object.getOwnPropertyDescriptor(window.XMLHttpRequestEventTarget.prototype, name);
      if (!d || !d.set) continue;
      Object.defineProperty(XP, name, {
        configurable: true, enumerable: d.enumerable, get: d.get,
        set(h) {
          hear(this);
          apply(d.set, this, [h]);
        },
      });
    }
    wrap(XP, "open", (orig) => (self, args) => {
      hear(self);
      return apply(orig, self, args);
    });
    wrap(XP, "send", (orig) => (self, args) => {
      const item = track("request");
      if (item) sent.set(self, item);
      try {
        return apply(orig, self, args);
      } catch (err) {
        sent.delete(self);
        done(item);
        throw err;
      }
    });
  }

  // A form's submit() under a cause plans a navigation the browser begins
  // a task later, after the cause may look quiet: the cause says it is
  // leaving (quiet's leaving), and the engine waits for that navigation.
  const FP = window.HTMLFormElement && window.HTMLFormElement.prototype;
  wrap(FP, "submit", (orig) => (self, args) => {
    const c = current();
    if (c && c.cause.pending) c.cause.planned = true;
    return apply(orig, self, args);
  });

  // The document's loading: its scripts run under the load cause until its
  // load event's listeners have run (the reset after this listener's task).
  window.addEventListener("load", (e) => {
    if (e.target !== document) return; // an image's or a frame's
    loading = false;
    const item = { cause: causes.load, gen: 0 };
    cur = item;
    leaveSoon(item);
    check(causes.load);
  }, true);

  // What a page said to a person: alert, confirm and prompt calls (the
  // engine answers the dialogs; this only notes that one was asked).
  let said = 0;
  for (const name of ["alert", "confirm", "prompt"]) {
    wrap(window, name, (orig) => (self, args) => {
      said++;
      return apply(orig, self, args);
    });
  }

  // What the page says to a person when it refuses something: an alert
  // region, an error box, a field's error message. Their texts are noted
  // when a step is armed; alerts() is what shows since that is new.
  const ALERTS = '[role=alert], [role=alertdialog], [aria-live=assertive], .alert-danger, .alert-error, .error-message, ' +
    '.errorlist, .errors, #error_explanation, .invalid-feedback, .field-error, .form-error, .notice-error, .notice--error, #login_error';
  let before = new Map();
  const alertTexts = () => {
    const m = new Map();
    for (const el of document.querySelectorAll(ALERTS)) {
      const t = (el.innerText || "").replace(/\s+/g, " ").trim();
      if (t && el.getClientRects().length) m.set(el, t);
    }
    return m;
  };

  const api = Object.freeze({
    // arm starts a step's cause: its trusted input is followed until the
    // next arm.
    arm() {
      causes.act = newCause("act");
      armed = causes.act;
      before = document.documentElement ? alertTexts() : new Map();
      return true;
    },
    // alerts: the texts of the alert regions and error boxes shown now
    // that were not shown (or said something else) when the last step was
    // armed.
    alerts() {
      const out = [];
      for (const [el, t] of alertTexts()) {
        if (before.get(el) !== t) out.push(t.slice(0, 200));
      }
      return out;
    },
    // quiet: a promise of {waited, idle, left} once the cause of kind
    // ("act", "load") has nothing pending, or after max ms (idle: true,
    // left: the kinds still pending). With soon (ms), a timer due later
    // than soon ms from now is not waited for (it runs all the same).
    quiet(kind, max, soon) {
      const cause = causes[kind];
      const w = { start: now(), soon: typeof soon === "number" ? soon : undefined, fin: null };
      if (kind === "act") armed = null; // the step's input is over
      if (!cause || left(cause, w) === 0) return Promise.resolve({ waited: 0, idle: false, left: [], leaving: !!(cause && cause.planned) });
      return new Promise((resolve) => {
        let timer = 0;
        w.fin = (idle) => {
          native.clearTimeout.call(window, timer);
          resolve({ waited: now() - w.start, idle, left: idle ? [...new Set([...cause.pending].map((i) => i.kind))] : [], leaving: !!cause.planned });
        };
        timer = native.setTimeout.call(window, () => {
          cause.waiters = cause.waiters.filter((x) => x !== w);
          w.fin(true);
        }, max);
        cause.waiters.push(w);
        check(cause);
      });
    },
    pending(kind) {
      const cause = causes[kind];
      return cause ? cause.pending.size : 0;
    },
    // said counts the dialogs the page has asked of a person so far.
    said() {
      return said;
    },
  });
  define(window, KEY, api);
})();
