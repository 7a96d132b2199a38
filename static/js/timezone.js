// Dates in the reader's own time zone. The server draws every date as <time data-when> in the
// account's zone (else the offering's, else UTC), so a page without this script is right for
// the zone it names. Here the browser's zone is read: while the account follows the browser
// (data-zone-mode="detected") a new zone is stored on the account and the page's dates are
// drawn again in it; a zone the person chose is never changed. Anonymous readers get their
// browser's zone on the page only. The exam timer counts down from the server's remaining
// seconds and is not touched here.
(function () {
  "use strict";

  function placeName(zone) {
    if (!zone || ["UTC", "Etc/UTC", "Etc/UCT", "UCT", "Universal", "Zulu", "GMT"].indexOf(zone) >= 0) return "UTC";
    if (zone.indexOf("Etc/") === 0) return zone.slice(4);
    return zone.split("/").pop().replace(/_/g, " ") + " time";
  }

  var STYLES = {
    long: { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" },
    "short": { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" },
    clock: { hour: "2-digit", minute: "2-digit" },
    date: { day: "numeric", month: "short", year: "numeric" }
  };

  // "15 Jan 2027, 23:59" as the server writes it, from the parts Intl gives for the zone.
  function format(date, style, zone) {
    var options = Object.assign({ timeZone: zone, hourCycle: "h23" }, STYLES[style] || STYLES.long);
    var parts = {};
    new Intl.DateTimeFormat("en-GB", options).formatToParts(date).forEach(function (p) { parts[p.type] = p.value; });
    var day = [parts.day, parts.month, parts.year].filter(Boolean).join(" ");
    var clock = parts.hour ? parts.hour + ":" + parts.minute : "";
    if (style === "clock") return clock;
    if (style === "date") return day;
    return day + ", " + clock;
  }

  function redraw(zone, root) {
    (root || document).querySelectorAll("time[data-when]").forEach(function (el) {
      var date = new Date(el.getAttribute("datetime"));
      if (isNaN(date.getTime())) return;
      el.textContent = format(date, el.getAttribute("data-when"), zone) + " " + placeName(zone);
      el.setAttribute("title", zone);
    });
    document.querySelectorAll("[data-zone-name]").forEach(function (el) { el.textContent = placeName(zone); });
    document.body.setAttribute("data-page-zone", zone);
  }

  // For other scripts (the exam timer's moved deadline): a moment as this page shows dates.
  window.siteTimes = {
    label: function (date) {
      var zone = document.body.getAttribute("data-page-zone") || "UTC";
      return format(date, "long", zone) + " " + placeName(zone);
    }
  };

  function csrfToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || ""; }
    catch (e) { return ""; }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var body = document.body;
    var detected;
    try { detected = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
    if (!detected) return;
    var mode = body.getAttribute("data-zone-mode");
    var account = body.getAttribute("data-account-zone") || "";
    var page = body.getAttribute("data-page-zone") || "UTC";
    if (mode === "chosen") return;
    if (mode === "anonymous") {
      if (detected !== page) redraw(detected);
      return;
    }
    if (detected === account) return;
    var url = body.getAttribute("data-zone-url");
    var data = new URLSearchParams({ time_zone: detected, detected: "1" });
    fetch(url, { method: "POST", body: data, credentials: "same-origin", headers: { "X-CSRFToken": csrfToken() } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (answer) {
        if (answer && answer.time_zone === detected) {
          body.setAttribute("data-account-zone", detected);
          if (detected !== page) redraw(detected);
        }
      })
      .catch(function () { /* the page stays right for the zone it names */ });
  });
  document.addEventListener("htmx:load", function (event) {
    var page = document.body.getAttribute("data-page-zone");
    var account = document.body.getAttribute("data-account-zone");
    var mode = document.body.getAttribute("data-zone-mode");
    // A fragment drawn by the server is in the account's zone; redraw it when the page is in another.
    if (mode !== "chosen" && page && page !== (account || page)) redraw(page, event.target);
  });
})();
