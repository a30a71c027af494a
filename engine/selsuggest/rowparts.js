  // How a row is named (rows.js, textrows.js): an element's tag and its
  // first stable class; a path up to the nearest stable id.
  const esc = (s) => (window.CSS && CSS.escape ? CSS.escape(s) : s);
  const stable = (c) => c && !/\d{3,}|^(is-|has-)?(active|selected|hover|odd|even|first|last)$/.test(c);
  const part = (e) => {
    let s = e.tagName.toLowerCase();
    const c = [...e.classList].filter(stable)[0];
    if (c) s += '.' + esc(c);
    return s;
  };
  const pathTo = (e) => {
    const parts = [];
    for (let x = e; x && x.nodeType === 1 && x !== document.documentElement; x = x.parentElement) {
      if (x.id && !/\d{3,}/.test(x.id)) { parts.unshift('#' + esc(x.id)); return parts.join(' > '); }
      parts.unshift(part(x));
    }
    return parts.join(' > ');
  };
