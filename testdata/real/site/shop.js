// Shared behaviour of every page: the top bar, a cookie banner that shows
// late and covers the bottom of the page until it is answered.
(function () {
  const bar = document.createElement('nav');
  bar.className = 'topbar';
  bar.innerHTML = '<a class="brand" href="index.html">Northwind Outfitters</a>' +
    '<a href="search.html">Search</a><a href="feed.html">New arrivals</a>' +
    '<a href="products.html">Products</a><a href="order.html">Order</a>' +
    '<a href="orders.html">My orders</a><a href="signin.html">Sign in</a>';
  document.body.prepend(bar);
  if (document.cookie.includes('consent=')) return;
  const banner = document.createElement('div');
  banner.id = 'cookie-banner';
  banner.setAttribute('role', 'dialog');
  banner.setAttribute('aria-label', 'Cookie consent');
  banner.innerHTML = '<p>We use cookies to remember your basket. Is that all right?</p>' +
    '<button class="btn" id="cookie-accept">Accept all cookies</button> ' +
    '<button class="btn secondary" id="cookie-reject">Only necessary</button>';
  const answer = (v) => { document.cookie = 'consent=' + v + '; path=/'; banner.remove(); };
  banner.querySelector('#cookie-accept').onclick = () => answer('all');
  banner.querySelector('#cookie-reject').onclick = () => answer('necessary');
  // Real banners arrive a moment after the page.
  setTimeout(() => document.body.append(banner), 150);
})();
