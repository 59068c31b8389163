// The list's filters, and the search's dates and order, are <details>: closed by default,
// a button each on a phone. On a wide screen they sit open as they always have. Loaded
// right after the filters, before the page is first drawn.
(function () {
  "use strict";
  var panels = document.querySelectorAll("details[data-open-when-wide]");
  var wide = window.matchMedia && window.matchMedia("(min-width: 52.01rem)");
  if (!panels.length || !wide) return;
  function follow() {
    for (var i = 0; i < panels.length; i++) panels[i].open = wide.matches;
  }
  follow();
  if (wide.addEventListener) wide.addEventListener("change", follow);
})();
