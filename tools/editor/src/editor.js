// The question studio's editor: CodeMirror 6 over the page's own <textarea>, which stays the
// form's field (every change is copied back and announced, so the live preview, Save and a page
// without this script all work the same). YAML highlighting, line numbers, each of the draft's
// errors marked at its line (read from the preview's error list after every preview), and
// completion of the template's fields, answer kinds, functions, catalog entries and fields, from
// the server's own reference (the textarea's data-completions URL).
//
// The editor lives in a shadow root: CodeMirror styles itself with constructed style sheets
// there, which the site's Content-Security-Policy (no 'unsafe-inline') allows, where in the
// document itself it would add a <style> element that the policy refuses.
import { autocompletion, closeBrackets, completionKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import {
  bracketMatching,
  defaultHighlightStyle,
  foldGutter,
  foldKeymap,
  indentOnInput,
  syntaxHighlighting,
} from "@codemirror/language";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { EditorSelection, EditorState } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";

let reference = null;

function loadReference(url) {
  if (!url || reference) return;
  reference = { functions: [], catalogs: {}, top_fields: [], part_fields: [], kinds: {} };
  fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then((response) => (response.ok ? response.json() : null))
    .then((data) => {
      if (data) reference = data;
    })
    .catch(() => {});
}

function options() {
  const ref = reference || {};
  const functions = (ref.functions || []).map((f) => ({
    label: f.name,
    type: "function",
    detail: f.signature,
    info: f.summary,
    apply: f.name + "(",
  }));
  const fields = [];
  const entries = [];
  for (const [catalog, data] of Object.entries(ref.catalogs || {})) {
    for (const field of data.fields || []) {
      fields.push({ label: field.name, type: "property", detail: `${catalog} · ${field.unit}` });
    }
    for (const method of data.methods || []) {
      fields.push({ label: method.name, type: "method", detail: `${catalog} ${method.signature}` });
    }
    for (const entry of data.entries || []) {
      entries.push({ label: entry, type: "constant", detail: catalog });
    }
  }
  const kindFields = new Set(ref.part_fields || []);
  for (const list of Object.values(ref.kinds || {})) list.forEach((f) => kindFields.add(f));
  return {
    functions,
    fields,
    entries,
    catalogs: Object.keys(ref.catalogs || {}).map((c) => ({ label: c, type: "keyword" })),
    kinds: Object.keys(ref.kinds || {}).map((k) => ({ label: k, type: "keyword" })),
    topKeys: (ref.top_fields || []).map((k) => ({ label: k, type: "keyword", apply: k + ": " })),
    partKeys: [...kindFields].map((k) => ({ label: k, type: "keyword", apply: k + ": " })),
  };
}

function complete(context) {
  const line = context.state.doc.lineAt(context.pos);
  const before = line.text.slice(0, context.pos - line.from);
  const all = options();
  const key = before.match(/^(\s*)(-\s+)?([a-z_]*)$/);
  if (key) {
    if (!key[3] && !context.explicit) return null;
    const choices = key[1].length === 0 && !key[2] ? all.topKeys : all.partKeys;
    return { from: context.pos - key[3].length, options: choices, validFor: /^[a-z_]*$/ };
  }
  const after = before.match(/\b(kind|catalog):\s*([a-z_]*)$/);
  if (after) {
    const list = after[1] === "kind" ? all.kinds : all.catalogs;
    return { from: context.pos - after[2].length, options: list, validFor: /^[a-z_]*$/ };
  }
  const member = before.match(/\.([A-Za-z_]\w*)?$/);
  if (member) {
    const typed = member[1] || "";
    return { from: context.pos - typed.length, options: all.fields, validFor: /^\w*$/ };
  }
  const word = context.matchBefore(/[A-Za-z_][\w.-]*/);
  if (!word || (word.from === word.to && !context.explicit)) return null;
  return {
    from: word.from,
    options: [...all.functions, ...all.entries],
    validFor: /^[\w.-]*$/,
  };
}

function issues(view) {
  const doc = view.state.doc;
  const found = [];
  document.querySelectorAll("#workbench .issue-list li").forEach((item) => {
    const link = item.querySelector("a.jump[data-line]");
    const message = item.textContent.replace(/^\s*line \d+,\s*/, "").trim();
    if (!link) return;
    const number = Math.min(Math.max(parseInt(link.getAttribute("data-line"), 10) || 1, 1), doc.lines);
    const line = doc.line(number);
    found.push({ from: line.from, to: line.to, severity: "error", message });
  });
  view.dispatch(setDiagnostics(view.state, found));
}

function jump(view, number) {
  const line = view.state.doc.line(Math.min(Math.max(number, 1), view.state.doc.lines));
  view.dispatch({
    selection: EditorSelection.range(line.from, line.to),
    effects: EditorView.scrollIntoView(line.from, { y: "center" }),
  });
  view.focus();
}

// The editor grows with its text, as the textarea did, so the page scrolls rather than a box
// inside it (lines wrap, so nothing scrolls sideways either).
const theme = EditorView.theme({
  "&": { minHeight: "30rem", fontSize: "13px", backgroundColor: "#fff" },
  ".cm-content, .cm-gutter": { minHeight: "30rem" },
  "&.cm-focused": { outline: "none" },
  ".cm-scroller": {
    fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
    lineHeight: "1.5",
  },
  ".cm-gutters": { backgroundColor: "#f1f3f7", color: "#5b6475", borderRight: "1px solid #dde2ea" },
  ".cm-activeLineGutter": { backgroundColor: "#e3e8f0" },
  ".cm-tooltip-autocomplete ul li[aria-selected]": { backgroundColor: "#1f5fbf", color: "#fff" },
  ".cm-completionDetail": { marginLeft: "0.6em", fontStyle: "normal", opacity: "0.85" },
  // The lint package draws its marks with data: URL images, which the site's img-src 'self'
  // refuses: a red wavy underline and a red dot, drawn by CSS alone, instead.
  ".cm-lintRange-error": {
    backgroundImage: "none",
    textDecoration: "underline wavy #c62828",
    textDecorationSkipInk: "none",
  },
  ".cm-lint-marker-error": {
    content: "none",
    backgroundColor: "#c62828",
    borderRadius: "50%",
    width: "0.7em",
    height: "0.7em",
    margin: "0.15em",
  },
});

function mount(textarea) {
  const host = document.createElement("div");
  host.className = "cm-host";
  textarea.insertAdjacentElement("afterend", host);
  const root = host.attachShadow({ mode: "open" });
  const label = document.querySelector(`label[for="${textarea.id}"]`);
  const help = document.getElementById("editor-help");
  const name = [label ? label.textContent.trim() : "Template source", help ? help.textContent.trim() : ""]
    .filter(Boolean)
    .join(". ");
  const view = new EditorView({
    parent: root,
    root,
    state: EditorState.create({
      doc: textarea.value,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        foldGutter(),
        lintGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        yaml(),
        autocompletion({ override: [complete], icons: false }),
        // Tab is left to the page (no keyboard trap): YAML is indented with spaces, and Enter
        // keeps the indentation.
        keymap.of([...defaultKeymap, ...historyKeymap, ...foldKeymap, ...completionKeymap, ...searchKeymap]),
        EditorView.lineWrapping,
        theme,
        // Ids do not reach into a shadow root: the label and its help are named here.
        EditorView.contentAttributes.of({ "aria-label": name, spellcheck: "false", autocapitalize: "off" }),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          textarea.value = update.state.doc.toString();
          textarea.dispatchEvent(new Event("input", { bubbles: true }));
        }),
      ],
    }),
  });
  textarea.hidden = true;
  const gutter = document.getElementById("gutter");
  if (gutter) gutter.hidden = true;
  host.closest(".code-editor")?.classList.add("has-codemirror");
  if (label) label.addEventListener("click", () => view.focus());
  loadReference(textarea.getAttribute("data-completions"));
  issues(view);
  document.body.addEventListener("htmx:afterSettle", () => issues(view));
  document.addEventListener(
    "click",
    (event) => {
      const link = event.target.closest("a.jump[data-line]");
      if (!link) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      jump(view, parseInt(link.getAttribute("data-line"), 10));
    },
    true,
  );
  return view;
}

function start() {
  document.querySelectorAll("textarea[data-code-editor]").forEach(mount);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
