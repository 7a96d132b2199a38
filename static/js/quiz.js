// The attempt page's enhancements; the server enforces every rule, and without JavaScript each
// form is a plain POST as before.
(function () {
  "use strict";

  // Exam countdown, on the server's clock: the page carries the server's time when it was
  // drawn (data-server-now, seconds), so a laptop clock that is fast or slow moves neither the
  // figure nor the moment the page reloads. The ticking figure is hidden from screen readers;
  // the live region speaks at sensible moments only: every 10 minutes, then at 5, 2 and 1
  // minute left, and when the deadline moves (an extension, read from each save's reply).
  var timer = document.querySelector("[data-deadline]");
  var moveDeadline = function () {};
  if (timer) {
    var end = Date.parse(timer.getAttribute("data-deadline"));
    var serverNow = parseInt(timer.getAttribute("data-server-now") || "", 10) * 1000;
    var skew = isNaN(serverNow) ? 0 : serverNow - Date.now();  // server minus this device
    var now = function () { return Date.now() + skew; };
    var out = timer.querySelector("[data-countdown]");
    var say = timer.querySelector("[data-timer-announce]");
    var warning = timer.querySelector("[data-timer-warning]");
    var shown = timer.querySelector("time");
    var spoken = {};
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    var tick = function () {
      var left = Math.max(0, Math.floor((end - now()) / 1000));
      var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
      out.textContent = "· " + (h ? h + ":" + pad(m) : m) + ":" + pad(s) + " left";
      out.classList.toggle("urgent", left < 300);
      var minutes = Math.ceil(left / 60);
      var moment = left > 0 && (minutes === 5 || minutes === 2 || minutes === 1 || minutes % 10 === 0);
      if (moment && !spoken[minutes] && left % 60 >= 55) {
        spoken[minutes] = true;
        if (say) say.textContent = minutes + " minute" + (minutes === 1 ? "" : "s") + " left in this exam.";
      }
      if (warning) {
        warning.hidden = !(left <= 300 && left > 0);
        warning.textContent = "Less than " + minutes + " minute" + (minutes === 1 ? "" : "s") +
          " left: your saved answers are graded when the time runs out.";
      }
      if (left === 0) {
        // A moment's grace (the page's clock is the server's to within a second), then once:
        // the server has submitted the attempt by then and the reload lands on its results.
        setTimeout(function () { window.location.reload(); }, 2000);
        return;
      }
      setTimeout(tick, 1000);
    };
    moveDeadline = function (iso) {
      var moved = Date.parse(iso);
      if (isNaN(moved) || moved === end) return;
      end = moved;
      spoken = {};
      timer.setAttribute("data-deadline", iso);
      if (shown) {
        shown.setAttribute("datetime", iso);
        shown.textContent = window.siteTimes ? window.siteTimes.label(new Date(moved)) : new Date(moved).toLocaleString([], {
          day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit",
          timeZoneName: "short"
        });
      }
      if (say) say.textContent = "The deadline of this exam has moved: it now ends at " + shown.textContent + ".";
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

  // The answer forms of an exam, and for each the values the server has acknowledged. The
  // Submit click fires its field's last save (its change event) just before the submission,
  // and htmx holds a save back while the same form's previous one is on its way: the
  // submission waits until every form's current values are acknowledged, sending a last save
  // for any that is not, so the text graded is the one on the screen. A save that does not
  // get through in time is named, and the student chooses (the server refuses, and says so,
  // a save that arrives after a submission).
  var saveForms = [];
  function formValues(form) {
    var values = [];
    form.querySelectorAll("input, textarea, select").forEach(function (field) {
      if (!field.name || field.name === "sequence" || field.name === "csrfmiddlewaretoken") return;
      if ((field.type === "radio" || field.type === "checkbox") && !field.checked) return;
      values.push(field.name + "=" + field.value);
    });
    return values.join("&");
  }
  document.querySelectorAll("form").forEach(function (form) {
    if (!form.querySelector("input[data-save-sequence]")) return;
    form._acked = formValues(form);  // what the page was drawn with is what is stored
    form._inFlight = 0;
    saveForms.push(form);
  });
  function saveFormOf(elt) { return elt && elt._inFlight !== undefined ? elt : null; }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = saveFormOf(event.detail.elt);
    if (!form) return;
    form._inFlight++;
    if (event.detail.xhr) event.detail.xhr._sentValues = formValues(form);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = saveFormOf(event.detail.elt);
    if (!form) return;
    form._inFlight = Math.max(0, form._inFlight - 1);
    var xhr = event.detail.xhr;
    var text = (xhr && xhr.responseText) || "";
    var superseded = xhr && xhr.getResponseHeader("X-Save-Sequence");
    if (xhr && xhr.status === 200 && !superseded && text.indexOf("save-status refused") === -1) {
      form._acked = xhr._sentValues;
      form._retryIn = 0;
    } else if (!xhr || xhr.status === 0 || xhr.status >= 400) {
      saveFailed(form, xhr ? xhr.status : 0);
    }
    var deadline = xhr && xhr.getResponseHeader("X-Attempt-Deadline");
    if (deadline) moveDeadline(deadline);
  });
  // A save that did not get through (no connection, a server error, a timeout): htmx leaves
  // the status line as it was, so an old "Saved at" would say the new text is safe. Say it is
  // not, keep the text in the box as typed, and try again, waiting longer each time (2 s
  // doubling to 15 s) while what is on the screen is still not acknowledged. A refusal the
  // student must act on (a session that ended: 403) says so and is not retried blindly.
  function saveFailed(form, status) {
    var line = form.querySelector(".save-status");
    if (line) {
      line.className = "save-status failed";
      line.setAttribute("role", "alert");
      line.textContent = status === 403 || status === 401
        ? "Not saved: your session has ended. Copy your answer, then reload the page."
        : "Not saved: " + (status ? "the server answered " + status : "no connection") +
          ". Your text is kept here; trying again…";
    }
    if (status === 403 || status === 401) return;
    form._retryIn = Math.min(15000, (form._retryIn || 1000) * 2);
    window.clearTimeout(form._retryTimer);
    form._retryTimer = window.setTimeout(function () {
      if (form._inFlight === 0 && formValues(form) !== form._acked) htmx.trigger(form, "submit");
    }, form._retryIn);
  }
  function unsaved(forms) {
    return forms.filter(function (form) { return form._inFlight > 0 || formValues(form) !== form._acked; });
  }
  function partName(form) {
    var part = form.closest(".part[data-part-name]");
    return part ? part.getAttribute("data-part-name") : "an answer";
  }

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
    var confirmed = form.querySelector("input[name=confirm]");
    if (confirmed) confirmed.value = "1";  // asked here: the server need not ask again
    if (!unsaved(saveForms).length) return;
    event.preventDefault();
    var button = form.querySelector("button[type=submit]");
    var label = button ? button.textContent : "";
    if (button) { button.disabled = true; button.textContent = "Saving your last answers…"; }
    var resent = [];
    var started = Date.now();
    var wait = function () {
      var pending = unsaved(saveForms);
      // A form with nothing on its way whose values are not acknowledged: send its save once.
      pending.forEach(function (f) {
        if (f._inFlight === 0 && resent.indexOf(f) === -1) { resent.push(f); htmx.trigger(f, "submit"); }
      });
      if (!pending.length) { form.submit(); return; }
      var stuck = pending.filter(function (f) { return f._inFlight === 0 && resent.indexOf(f) !== -1; });
      if (Date.now() - started < 10000 && stuck.length < pending.length) { setTimeout(wait, 100); return; }
      var names = pending.map(partName);
      var go = window.confirm(names.length + " answer" + (names.length === 1 ? " has" : "s have") +
        " not reached the server:\n- " + names.join("\n- ") + "\n\nSubmit anyway? " +
        "They would be graded as last saved. Cancel to stay on the exam and try again.");
      if (go) { form.submit(); return; }
      if (button) { button.disabled = false; button.textContent = label; }
    };
    setTimeout(wait, 0);
  });
})();
