// The studio editor's small comforts: line numbers that follow the text, and error links that
// jump to their line. The page works without this file.
(function () {
  "use strict";
  function setup() {
    var area = document.getElementById("source");
    var gutter = document.getElementById("gutter");
    if (!area || !gutter) return;

    function renumber() {
      var lines = area.value.split("\n").length;
      var out = [];
      for (var i = 1; i <= lines; i++) out.push(i);
      gutter.textContent = out.join("\n") + "\n";
      gutter.scrollTop = area.scrollTop;
    }
    area.addEventListener("input", renumber);
    area.addEventListener("scroll", function () { gutter.scrollTop = area.scrollTop; });
    renumber();

    function jumpTo(line) {
      var lines = area.value.split("\n");
      var start = 0;
      for (var i = 0; i < line - 1 && i < lines.length; i++) start += lines[i].length + 1;
      var end = start + (lines[line - 1] || "").length;
      area.focus();
      area.setSelectionRange(start, end);
      var lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 19;
      area.scrollTop = Math.max(0, (line - 4) * lineHeight);
      gutter.scrollTop = area.scrollTop;
    }
    // Delegated: the error list is replaced by every htmx preview.
    document.addEventListener("click", function (event) {
      var link = event.target.closest("a.jump[data-line]");
      if (!link) return;
      event.preventDefault();
      jumpTo(parseInt(link.getAttribute("data-line"), 10));
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();
