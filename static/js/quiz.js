// The attempt page's enhancements; the server enforces every rule, and without JavaScript each
// form is a plain POST as before.
(function () {
  "use strict";

  // Exam countdown. The ticking figure is hidden from screen readers; the live region speaks
  // at sensible moments only: every 10 minutes, then at 5, 2 and 1 minute left.
  var timer = document.querySelector("[data-deadline]");
  if (timer) {
    var end = Date.parse(timer.getAttribute("data-deadline"));
    var out = timer.querySelector("[data-countdown]");
    var say = timer.querySelector("[data-timer-announce]");
    var warning = timer.querySelector("[data-timer-warning]");
    var spoken = {};
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    var tick = function () {
      var left = Math.max(0, Math.floor((end - Date.now()) / 1000));
      var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
      out.textContent = "· " + (h ? h + ":" + pad(m) : m) + ":" + pad(s) + " left";
      out.classList.toggle("urgent", left < 300);
      var minutes = Math.ceil(left / 60);
      var moment = left > 0 && (minutes === 5 || minutes === 2 || minutes === 1 || minutes % 10 === 0);
      if (moment && !spoken[minutes] && left % 60 >= 55) {
        spoken[minutes] = true;
        if (say) say.textContent = minutes + " minute" + (minutes === 1 ? "" : "s") + " left in this exam.";
      }
      if (warning && left <= 300 && left > 0) {
        warning.hidden = false;
        warning.textContent = "Less than " + minutes + " minute" + (minutes === 1 ? "" : "s") +
          " left: your saved answers are graded when the time runs out.";
      }
      if (left === 0) { window.location.reload(); return; }
      setTimeout(tick, 1000);
    };
    tick();
  }

  // The parts that would score 0 as saved now, read from their save status.
  function incomplete() {
    var names = [];
    document.querySelectorAll(".part[data-part-name]").forEach(function (part) {
      var status = part.querySelector(".save-status");
      if (!status) return;
      if (status.classList.contains("empty")) names.push(part.getAttribute("data-part-name") + ": empty");
      if (status.classList.contains("unreadable")) names.push(part.getAttribute("data-part-name") + ": cannot be read");
    });
    return names;
  }

  // The question navigator: a question whose parts all have a readable saved answer (exam) or
  // were graded at least once (homework) is marked answered, one with some of them partly; one with an unreadable answer asks for attention.
  // Homework marks a question correct once every part's latest verdict is "correct"; an exam
  // navigator (no data-shows-correct) never does.
  function refreshNavigator() {
    var total = 0, answeredCount = 0, flaggedCount = 0, correctCount = 0;
    var nav = document.querySelector(".question-nav");
    var showsCorrect = !!nav && nav.hasAttribute("data-shows-correct");
    document.querySelectorAll("[data-nav-for]").forEach(function (link) {
      var question = document.getElementById(link.getAttribute("data-nav-for"));
      if (!question) return;
      var parts = question.querySelectorAll(".part");
      var done = 0, bad = false, right = 0;
      parts.forEach(function (part) {
        var status = part.querySelector(".save-status");
        if (status) {
          if (status.classList.contains("saved")) done++;
          if (status.classList.contains("unreadable")) bad = true;
        } else if (part.classList.contains("final") ||
                   part.querySelector(".part-result .feedback.correct, .part-result .feedback.incorrect")) {
          done++;  // homework: graded at least once
          if (showsCorrect && part.querySelector(".part-result .feedback.correct")) right++;
        }
      });
      var answered = parts.length > 0 && done === parts.length;
      var partial = done > 0 && !answered;
      var correct = showsCorrect && parts.length > 0 && right === parts.length;
      link.classList.toggle("correct", correct && !bad);
      link.classList.toggle("answered", answered && !bad && !correct);
      link.classList.toggle("attention", bad);
      link.classList.toggle("partial", partial && !bad && !correct);
      var state = bad ? "an answer cannot be read" : correct ? "correct" : answered ? "answered" :
        partial ? "partly answered" : "not answered yet";
      var flagged = link.classList.contains("flagged");
      total++; if (answered && !bad) answeredCount++; if (flagged) flaggedCount++;
      if (correct && !bad) correctCount++;
      link.setAttribute("aria-label", "Question " + link.getAttribute("data-number") + ", " + state + (flagged ? ", flagged" : ""));
    });
    var summary = document.querySelector("[data-nav-summary]");
    if (summary) {
      summary.textContent = answeredCount + " of " + total + " answered" +
        (correctCount ? " · " + correctCount + " correct" : "") +
        (flaggedCount ? " · " + flaggedCount + " flagged" : "");
    }
  }
  // "Flag for later": the student's own marks, kept in this browser for this attempt. The
  // button is made here, so a page without JavaScript shows no button that does nothing.
  var flagKey = "flags:" + window.location.pathname;
  var flags = {};
  try { flags = JSON.parse(window.localStorage.getItem(flagKey) || "{}"); } catch (e) { flags = {}; }
  document.querySelectorAll("section.question[id]").forEach(function (question) {
    var head = question.querySelector(".question-head");
    if (!head) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "button secondary small flag-toggle";
    var show = function () {
      var on = !!flags[question.id];
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.textContent = on ? "Flagged" : "Flag for later";
      question.classList.toggle("flagged", on);
      var link = document.querySelector('[data-nav-for="' + question.id + '"]');
      if (link) link.classList.toggle("flagged", on);
      refreshNavigator();
    };
    button.addEventListener("click", function () {
      flags[question.id] = !flags[question.id];
      try { window.localStorage.setItem(flagKey, JSON.stringify(flags)); } catch (e) { /* private mode */ }
      show();
    });
    head.appendChild(button);
    show();
  });

  refreshNavigator();
  document.addEventListener("htmx:afterSwap", refreshNavigator);

  // Exam autosave: each save carries a sequence that only grows, and the server keeps a save
  // only if no save with a larger sequence is stored, so a slow request arriving after a newer
  // one cannot overwrite it. The sequence is this page's clock in ms (a reloaded page or a
  // second tab typing later goes above what was sent before), never below the stored save's
  // (rendered into the form: a clock set back, another device) nor this page's last one.
  document.addEventListener("htmx:configRequest", function (event) {
    var form = event.detail.elt;
    var field = form && form.querySelector && form.querySelector("input[data-save-sequence]");
    if (!field) return;
    // At the largest the server takes (only a hand-made save gets there) it stays there: an
    // equal sequence is still stored, so the page keeps saving, in arrival order.
    var next = Math.max(Date.now(), parseInt(field.value, 10) || 1);
    next = Math.min(next, Number.MAX_SAFE_INTEGER);
    field.value = String(next + 1);
    event.detail.parameters.sequence = String(next);
  });
  // A save superseded by a newer one from another window: this text was not stored and the
  // status line stays as it was; the page's next save (the student typing on here) goes above
  // the stored one even when this device's clock is behind the other's.
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    var xhr = event.detail.xhr;
    var field = form && form.querySelector && form.querySelector("input[data-save-sequence]");
    var stored = field && xhr && parseInt(xhr.getResponseHeader("X-Save-Sequence") || "", 10);
    if (stored && stored >= (parseInt(field.value, 10) || 1)) field.value = String(stored + 1);
  });

  // Saves still on their way. Clicking Submit fires the field's last save (its change event)
  // just before the submission: the submission waits for it, so the text graded is the one
  // typed last (the server refuses, and says so, a save that arrives after a submission).
  var savesInFlight = 0, whenSaved = null;
  function isSave(elt) { return !!(elt && elt.querySelector && elt.querySelector("input[data-save-sequence]")); }
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (isSave(event.detail.elt)) savesInFlight++;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (!isSave(event.detail.elt)) return;
    savesInFlight = Math.max(0, savesInFlight - 1);
    if (!savesInFlight && whenSaved) whenSaved();
  });

  // Forms with data-confirm ask before posting (submitting an exam cannot be undone), naming
  // the parts that are empty or cannot be read.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form && form.getAttribute && form.getAttribute("data-confirm");
    if (!question) return;
    var missing = incomplete();
    if (missing.length) {
      question = missing.length + " part" + (missing.length === 1 ? "" : "s") +
        " would score 0 as saved now:\n- " + missing.join("\n- ") + "\n\n" + question;
    }
    if (!window.confirm(question)) { event.preventDefault(); return; }
    if (!savesInFlight) return;
    event.preventDefault();
    var button = form.querySelector("button[type=submit]");
    if (button) { button.disabled = true; button.textContent = "Saving your last answer…"; }
    var sent = false;
    var send = function () {
      if (sent) return;
      sent = true;
      whenSaved = null;
      form.submit();  // no submit event again: the student has already confirmed
    };
    whenSaved = send;
    setTimeout(send, 10000);  // a save that never answers does not hold the submission
  });
})();
