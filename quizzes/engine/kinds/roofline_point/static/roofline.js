// A roofline part's chart as a pointer: a click on the plot fills the coordinate boxes in with
// the values under the pointer and rings the spot; typing in the boxes moves the ring. The
// boxes are the answer, so the page works the same without this file.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";

  function numbers(text) {
    return (text || "").split(" ").map(Number);
  }

  function setup(root) {
    var boxes = (root.querySelectorAll ? root : document).querySelectorAll("[data-roofline-input]");
    Array.prototype.forEach.call(boxes, function (box) {
      if (box.getAttribute("data-ready")) return;
      var svg = box.querySelector("svg[data-decades]");
      if (!svg) return;
      box.setAttribute("data-ready", "1");
      var plot = numbers(svg.getAttribute("data-plot"));
      var decades = numbers(svg.getAttribute("data-decades"));
      var x = box.querySelector("[data-coordinate=intensity]");
      var y = box.querySelector("[data-coordinate=performance]");
      var peak = parseFloat(box.getAttribute("data-peak"));
      var bandwidth = parseFloat(box.getAttribute("data-bandwidth"));
      var at = parseFloat(box.getAttribute("data-at"));
      var ring = document.createElementNS(SVG, "circle");
      ring.setAttribute("r", "7");
      ring.setAttribute("class", "placed");
      ring.setAttribute("aria-hidden", "true");
      ring.setAttribute("visibility", "hidden");
      svg.appendChild(ring);
      svg.classList.add("placing");

      function toValue(at, lo, hi, start, end) {
        return Math.pow(10, lo + (at - start) / (end - start) * (hi - lo));
      }
      function toSpot(value, lo, hi, start, end) {
        return start + (Math.log10(value) - lo) / (hi - lo) * (end - start);
      }
      function read(input) {
        var value = input ? Number(input.value.trim()) : NaN;
        return value > 0 ? value : NaN;
      }
      function place() {
        var vx = x ? read(x) : at;
        var vy = y ? read(y) : Math.min(peak, vx * bandwidth);
        if (!(vx > 0 && vy > 0)) { ring.setAttribute("visibility", "hidden"); return; }
        ring.setAttribute("cx", toSpot(vx, decades[0], decades[1], plot[0], plot[2]).toFixed(1));
        ring.setAttribute("cy", toSpot(vy, decades[2], decades[3], plot[3], plot[1]).toFixed(1));
        ring.setAttribute("visibility", "visible");
      }
      function fill(input, value) {
        input.value = Number(value.toPrecision(3)).toString();
        input.dispatchEvent(new Event("input", { bubbles: true }));
        input.dispatchEvent(new Event("change", { bubbles: true }));
      }
      svg.addEventListener("click", function (event) {
        var fields = box.querySelector("fieldset");
        if (fields && fields.disabled) return;
        var spot = svg.createSVGPoint();
        spot.x = event.clientX;
        spot.y = event.clientY;
        var inside = spot.matrixTransform(svg.getScreenCTM().inverse());
        var px = Math.min(Math.max(inside.x, plot[0]), plot[2]);
        var py = Math.min(Math.max(inside.y, plot[1]), plot[3]);
        if (x) fill(x, toValue(px, decades[0], decades[1], plot[0], plot[2]));
        if (y) fill(y, toValue(py, decades[2], decades[3], plot[3], plot[1]));
        place();
      });
      [x, y].forEach(function (input) { if (input) input.addEventListener("input", place); });
      place();
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { setup(document); });
  } else {
    setup(document);
  }
  document.addEventListener("htmx:load", function (event) { setup(event.target); });
})();
