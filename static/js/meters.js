// Bar widths for meters and share bars. The width is in data-width (a percentage) rather than
// an inline style attribute, which the site's Content-Security-Policy does not allow; setting
// it from a script is allowed. Without JavaScript the bars are empty and the figure beside
// each bar still says the value.
(function () {
  "use strict";
  function size(root) {
    var bars = (root || document).querySelectorAll("[data-width]");
    for (var i = 0; i < bars.length; i++) {
      var value = parseFloat(bars[i].getAttribute("data-width"));
      if (isFinite(value)) bars[i].style.width = Math.max(0, Math.min(100, value)) + "%";
    }
  }
  document.addEventListener("DOMContentLoaded", function () { size(document); });
  // Regions that htmx swaps in (the studio's validation report) bring their own bars.
  document.addEventListener("htmx:load", function (event) { size(event.target); });
})();
