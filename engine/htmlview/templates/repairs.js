// The repairs page's apply buttons: each posts its proposal's id and the
// map's hash the diff was made from to repairs/apply, with the ui's header
// (as the live view posts its input), and shows the answer.
(function () {
  'use strict';
  document.querySelectorAll('button.apply').forEach(function (b) {
    b.addEventListener('click', function () {
      var state = b.parentNode.querySelector('.apply-state');
      b.disabled = true;
      state.textContent = 'applying…';
      fetch('repairs/apply', {
        method: 'POST', credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-Toolwright-UI': '1' },
        body: JSON.stringify({ id: b.dataset.id, hash: b.dataset.hash })
      }).then(function (r) {
        return r.text().then(function (t) {
          state.textContent = (r.ok ? 'applied: ' : 'not applied: ') + t;
          if (!r.ok) b.disabled = false;
        });
      }).catch(function (e) { state.textContent = 'not applied: ' + e; b.disabled = false; });
    });
  });
})();
