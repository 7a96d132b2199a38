// Small site-wide enhancements; every page works without them.
(function () {
  "use strict";

  // A region that scrolls sideways (a wide formula, a table) must be reachable by keyboard:
  // give the ones that actually scroll a tab stop, and only those. One pixel counts: a
  // formula drawn 255 px wide in 254 px scrolls, and axe-core counts it as a scroller too.
  // Content wider than a region that does not scroll (a chapter's formula inside the box
  // that scrolls it) is the box's to scroll, not the region's.
  function scrollsSideways(el) {
    if (el.scrollWidth <= el.clientWidth) return false;
    var overflow = window.getComputedStyle(el).overflowX;
    return overflow === "auto" || overflow === "scroll";
  }
  function focusableScrollers(root) {
    var regions = (root || document).querySelectorAll("math[display=block], .math-display, .step-math, .table-scroll, table");
    for (var i = 0; i < regions.length; i++) {
      var el = regions[i];
      if (scrollsSideways(el) && !el.hasAttribute("tabindex") && !el.querySelector("a, button, input, select, textarea")) {
        el.setAttribute("tabindex", "0");
      }
    }
  }

  // The calculator's price field shows the chosen accelerator's catalog price as its
  // placeholder; the result fragment carries the new one (the input itself is never replaced,
  // so typing in it is not interrupted).
  function pricePlaceholder(root) {
    var source = (root || document).querySelector("[data-catalog-price]");
    var input = document.querySelector(".calculator-form input[name=price]");
    if (source && input) input.placeholder = source.getAttribute("data-catalog-price");
  }

  // An override's score field knows the maximum of what it applies to (the whole attempt or
  // one question); the server checks it either way.
  function syncMax(select) {
    var input = document.getElementById(select.getAttribute("data-max-for"));
    var option = select.options[select.selectedIndex];
    if (input && option && option.getAttribute("data-max")) input.max = option.getAttribute("data-max");
  }
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("select[data-max-for]")) syncMax(event.target);
  });

  document.addEventListener("DOMContentLoaded", function () {
    focusableScrollers(document);
    document.querySelectorAll("select[data-max-for]").forEach(syncMax);
  });
  // Looked at again once everything has loaded and the fonts are in: a formula laid out
  // before then can be wider afterwards.
  window.addEventListener("load", function () {
    focusableScrollers(document);
    if (window.requestAnimationFrame) window.requestAnimationFrame(function () { focusableScrollers(document); });
  });
  if (document.fonts && document.fonts.ready) {
    document.fonts.ready.then(function () { focusableScrollers(document); });
  }
  window.addEventListener("resize", function () { focusableScrollers(document); });
  document.addEventListener("htmx:load", function (event) { focusableScrollers(event.target); });
  document.addEventListener("htmx:afterSwap", function (event) { pricePlaceholder(event.target); });
})();
