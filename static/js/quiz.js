// Exam countdown: the server enforces the deadline; this only shows the time left.
(function () {
  var box = document.querySelector("[data-deadline]");
  if (!box) return;
  var end = Date.parse(box.getAttribute("data-deadline"));
  var out = box.querySelector("[data-countdown]");
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function tick() {
    var left = Math.max(0, Math.floor((end - Date.now()) / 1000));
    var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
    out.textContent = "· " + (h ? h + ":" + pad(m) : m) + ":" + pad(s) + " left";
    out.classList.toggle("urgent", left < 120);
    if (left === 0) { window.location.reload(); return; }
    setTimeout(tick, 1000);
  }
  tick();
})();

// Forms with data-confirm ask before posting (submitting an exam cannot be undone). Without
// JavaScript the form is a plain POST, as it always was.
document.addEventListener("submit", function (event) {
  var form = event.target;
  var question = form && form.getAttribute && form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) event.preventDefault();
});
