// A link to a table's row (a checkpoint, #checkpoint-llama-2-7b) shows the table's headings too: the browser
// puts the row under the sticky header, the headings above it out of sight; the page is scrolled so that the
// table starts under the header, as long as the row stays on screen. A link to "Cite this page" opens the box.
(function () {
  "use strict";
  function show() {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id && document.getElementById(id);
    if (!target) return;
    if (target.tagName === "DETAILS") target.open = true;
    const table = target.tagName === "TR" ? target.closest("table") : null;
    if (!table) return;
    const header = document.querySelector(".md-header");
    const below = header ? header.getBoundingClientRect().bottom : 0;
    const shift = (table.caption || table.tHead || table).getBoundingClientRect().top - below - 8;
    if (shift < 0 && target.getBoundingClientRect().bottom - shift <= window.innerHeight) window.scrollBy(0, shift);
  }
  // After the browser's (or instant navigation's) own scroll to the target.
  const later = () => setTimeout(show, 0);
  window.addEventListener("hashchange", later);
  if (window.document$) window.document$.subscribe(later);
  else if (document.readyState === "complete") later();
  else window.addEventListener("load", later);
})();
