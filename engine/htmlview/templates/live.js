// The live view's viewer: shows the frames /frames streams, and posts the
// person's mouse, wheel, keyboard and paste to /input, one event at a time
// and in order (consecutive mouse moves collapse into the newest).
(function () {
  'use strict';
  var box = document.getElementById('live');
  var img = document.getElementById('screen');
  var state = document.getElementById('state');
  var done = document.getElementById('done');
  var size = { w: 0, h: 0 };
  var queue = [], sending = false;
  // finished: done was answered; its answer stays what the person reads,
  // whatever the stream does next (the ui closes the view once it is done).
  var finished = false;

  function pump() {
    if (sending || queue.length === 0) return;
    sending = true;
    var ev = queue.shift();
    fetch('input', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-Toolwright-Live': '1' },
      body: JSON.stringify(ev)
    }).then(function (r) {
      if (!r.ok) return r.text().then(function (t) { state.textContent = 'input refused: ' + t; });
    }).catch(function (e) { state.textContent = 'input failed: ' + e; })
      .finally(function () { sending = false; pump(); });
  }
  function send(ev) {
    if (ev.t === 'mouseMoved' && queue.length && queue[queue.length - 1].t === 'mouseMoved') queue.pop();
    queue.push(ev);
    pump();
  }
  function mods(e) { return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0); }
  function at(e) {
    var r = img.getBoundingClientRect();
    var w = size.w || img.naturalWidth, h = size.h || img.naturalHeight;
    return { x: (e.clientX - r.left) * w / r.width, y: (e.clientY - r.top) * h / r.height };
  }
  var buttons = ['left', 'middle', 'right', 'back', 'forward'];
  function mouse(t, e, clicks) {
    var p = at(e);
    send({ t: t, x: p.x, y: p.y, button: t === 'mouseMoved' ? 'none' : (buttons[e.button] || 'none'),
      buttons: e.buttons, clicks: clicks || 0, mods: mods(e) });
  }
  img.addEventListener('mousedown', function (e) { e.preventDefault(); mouse('mousePressed', e, e.detail || 1); box.focus({ preventScroll: true }); });
  img.addEventListener('mouseup', function (e) { e.preventDefault(); mouse('mouseReleased', e, e.detail || 1); });
  img.addEventListener('mousemove', function (e) { mouse('mouseMoved', e, 0); });
  img.addEventListener('contextmenu', function (e) { e.preventDefault(); });
  img.addEventListener('wheel', function (e) {
    e.preventDefault();
    var p = at(e);
    send({ t: 'mouseWheel', x: p.x, y: p.y, dx: e.deltaX, dy: e.deltaY, button: 'none', mods: mods(e) });
  }, { passive: false });
  function key(t, e) {
    var text = '';
    if (t === 'keyDown' && !e.ctrlKey && !e.metaKey) {
      if (e.key.length === 1) text = e.key;
      else if (e.key === 'Enter') text = '\r';
    }
    send({ t: t, key: e.key, code: e.code, text: text, keyCode: e.keyCode || 0, mods: mods(e) });
  }
  box.addEventListener('keydown', function (e) {
    if ((e.ctrlKey || e.metaKey) && (e.key === 'v' || e.key === 'V')) return; // the paste event follows
    e.preventDefault();
    key('keyDown', e);
  });
  box.addEventListener('keyup', function (e) {
    if ((e.ctrlKey || e.metaKey) && (e.key === 'v' || e.key === 'V')) return;
    e.preventDefault();
    key('keyUp', e);
  });
  box.addEventListener('paste', function (e) {
    e.preventDefault();
    var t = (e.clipboardData || window.clipboardData).getData('text');
    if (t) send({ t: 'paste', text: t });
  });
  if (done) done.addEventListener('click', function () {
    done.disabled = true;
    fetch('input', { method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-Toolwright-Live': '1' }, body: '{"t":"done"}' })
      .then(function (r) { return r.text().then(function (t) { state.textContent = t; finished = r.ok; if (!r.ok) done.disabled = false; }); })
      .catch(function (e) { state.textContent = 'done failed: ' + e; done.disabled = false; });
  });

  // While the call waits for the person, ask now and then whether it has
  // gone on (what it waited for holds, or it ended), and say so.
  var message = document.getElementById('message');
  if (message && message.getAttribute('data-watch')) {
    var watch = setInterval(function () {
      fetch('status', { credentials: 'same-origin', cache: 'no-store' })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (s) {
          if (!s || s.waiting) return;
          clearInterval(watch);
          message.className = 'ask gone';
          message.setAttribute('data-gone', '1');
          message.textContent = 'The call has gone on: what it waited for is done, or it ended. You can close this page.';
        })
        .catch(function () { /* asked again at the next tick */ });
    }, 2000);
  }

  var frames = 0;
  var es = new EventSource('frames');
  es.onmessage = function (m) {
    var f = JSON.parse(m.data);
    if (f.w) size = { w: f.w, h: f.h };
    img.src = 'data:image/jpeg;base64,' + f.d;
    frames++;
    box.setAttribute('data-frames', String(frames));
    if (!finished) state.textContent = 'live';
  };
  es.addEventListener('end', function () {
    es.close();
    box.setAttribute('data-ended', '1');
    if (!finished) state.textContent = 'the page is gone';
  });
  es.onerror = function () { if (es.readyState === 2 && !finished) state.textContent = 'disconnected'; };
})();
