// The search index, the site's heaviest file, loads when the reader opens search, not with every page.
// Served, Material requests it (search/search_index.json, with XMLHttpRequest) as soon as a page loads; this
// holds that one request until the search field takes the focus or the search toggle is set (the search
// icon, the "/", "s" and "f" keys), and sends it at once when the address asks to highlight a search's words
// (?h=). From disk Material already waits for search to open, and loads the index as a script: nothing to
// hold there. Loaded before Material's bundle (mkdocs.yml, extra.polyfills); tests/test_browser.py watches the
// requests, so that a Material that loads its index otherwise fails a test rather than this going stale.
(function () {
  "use strict";
  if (location.protocol === "file:") return;
  const INDEX = /\/search\/search_index\.json$/;
  const open = XMLHttpRequest.prototype.open;
  const send = XMLHttpRequest.prototype.send;
  const paths = new WeakMap(); // each request's path, as opened
  const held = []; // [request, arguments of its send]
  let released = new URL(location.href).searchParams.has("h");

  XMLHttpRequest.prototype.open = function (method, url) {
    paths.set(this, new URL(url, location.href).pathname);
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    if (!released && INDEX.test(paths.get(this) || "")) {
      held.push([this, arguments]);
      return undefined;
    }
    return send.apply(this, arguments);
  };

  function release() {
    released = true;
    for (const [request, args] of held.splice(0)) {
      if (request.readyState === XMLHttpRequest.OPENED) send.apply(request, args); // not if Material gave it up
    }
  }
  document.addEventListener("focusin", (event) => {
    if (event.target.matches && event.target.matches("[data-md-component=search-query]")) release();
  });
  document.addEventListener("change", (event) => {
    if (event.target.id === "__search" && event.target.checked) release();
  });
})();
