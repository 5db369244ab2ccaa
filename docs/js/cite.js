// The "Cite this page" entry's access date is the reader's: the build wrote its own date, replaced here
// by today's (the reader's local date, as YYYY-MM-DD). Runs on every page Material shows.
(function () {
  "use strict";
  function today() {
    const now = new Date();
    const pad = (n) => String(n).padStart(2, "0");
    const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
    document.querySelectorAll("[data-dv-today]").forEach((el) => { el.textContent = date; });
  }
  if (window.document$) window.document$.subscribe(today);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", today);
  else today();
})();
