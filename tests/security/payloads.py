"""Hostile text an author, or a student quoted back by the grader, could put on a page, and the
checks that nothing active survives rendering.

Each payload is Markdown with math, as a prompt, hint, option, feedback, solution or chapter
holds it. None uses ``{{`` (a live expression) so that the template engine passes it through
as text. `active_content` parses the rendered HTML with a WHATWG parser (as a browser does, MathML
and SVG included) and lists whatever could run script, load from elsewhere or pose as the site.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser

ALERT = "alert(document.domain)"
B64_SCRIPT = "PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="

MATH = [
    r"$\text{<img/src='x'/onerror=alert(1)>}$",
    r'$\text{<img src="x" onerror="' + ALERT + r'">}$',
    r"$\text{<script>alert(1)</script>}$",
    r"$\mbox{<svg onload=alert(1)>}$",
    r"$\textrm{<iframe src=javascript:alert(1)>}$",
    r"$\textbf{<b onmouseover=alert(1)>x</b>}$",
    r"$\href{javascript:alert(1)}{x}$",
    r"$\href{data:text/html;base64," + B64_SCRIPT + r"}{x}$",
    r"$\href{https://evil.example/}{x}$",
    r"$\style{background:url(javascript:alert(1))}{x}$",
    r"$\style{position:fixed;top:0;left:0;width:100%;height:100%}{x}$",
    r"$\class{message success}{x}$",
    r"$\unicode{x3C}script\unicode{x3E}alert(1)\unicode{x3C}/script\unicode{x3E}$",
    r"$\text{&lt;img src=x onerror=alert(1)&gt;}$",
    r"$\text{&#60;img src=x onerror=alert(1)&#62;}$",
    r"$\text{&#x3C;svg onload=alert(1)&#x3E;}$",
    r"$\text{<mglyph><style><img src=x onerror=alert(1)>}$",
    r"$\text{</mtext></math><img src=x onerror=alert(1)>}$",
    r'$\text{<annotation-xml encoding="text/html"><img src=x onerror=alert(1)>}$',
    r"$$\text{<img src=x onerror=alert(1)>}$$",
    r'$\color{red" onmouseover="alert(1)}{x}$',
    r"$\operatorname{<img src=x onerror=alert(1)>}$",
    r"$\mathrm{<img src=x onerror=alert(1)>}$",
    r"$\begin{matrix}\text{<img src=x onerror=alert(1)>} & 1\end{matrix}$",
    r'$\text{<a href="javascript:alert(1)">x</a>}$',
    r'$\text{<maction actiontype="statusline" xlink:href="javascript:alert(1)">x</maction>}$',
    r"$\text{<svg><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>}$",
    r'$\text{<object data="javascript:alert(1)">}$',
    r'$\text{<embed src="data:text/html;base64,' + B64_SCRIPT + r'">}$',
    r"$\text{<style>*{background:url(//evil.example/x)}</style>}$",
    r"$\text{<img src=x onerror=alert(1)//}$",
    r"$\text{<!--><img src=x onerror=alert(1)>-->}$",
    r"$\text{<![CDATA[><img src=x onerror=alert(1)>]]>}$",
    r'$\text{<noscript><p title="</noscript><img src=x onerror=alert(1)>">}$',
    r"$\text{<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>}$",
    r'$\text{<table><mglyph><svg><mtext><textarea><a title="</textarea>'
    r'<img src=x onerror=alert(1)>">}$',
    r"$\fbox{<details open ontoggle=alert(1)>}$",
    r"$x_{\text{<img src=x onerror=alert(1)>}}^{\text{<svg onload=alert(1)>}}$",
    r"$\frac{\text{<img src=x onerror=alert(1)>}}{2}$",
]

MARKUP = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "<svg/onload=alert(1)>",
    '<iframe src="javascript:alert(1)"></iframe>',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](java&#x09;script:alert(1))",
    "[click](data:text/html;base64," + B64_SCRIPT + ")",
    "[click](vbscript:msgbox(1))",
    "![x](javascript:alert(1))",
    '![x](x" onerror="alert(1))',
    "![x](https://evil.example/track.png)",
    "![x](//evil.example/track.png)",
    "<javascript:alert(1)>",
    "[x][ref]\n\n[ref]: javascript:alert(1)",
    '<a href="javascript:alert(1)">x</a>',
    '<a href="&#106;avascript:alert(1)">x</a>',
    '<a href="&#x6A;avascript&colon;alert(1)">x</a>',
    '<a href=" javascript:alert(1)">x</a>',
    '<div style="background:url(javascript:alert(1))">x</div>',
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    '<math href="javascript:alert(1)"><mi>x</mi></math>',
    '<math><annotation-xml encoding="text/html"><svg onload=alert(1)></annotation-xml></math>',
    '<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;/mglyph&gt;&lt;img'
    '&Tab;src=1&Tab;onerror=alert(1)&gt;">',
    "<details open ontoggle=alert(1)><summary>x</summary></details>",
    '<p title="</p><img src=x onerror=alert(1)>">x</p>',
    "<img src=x onerror=alert&lpar;1&rpar;>",
    '<base href="https://evil.example/">',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    "<link rel=stylesheet href=https://evil.example/x.css>",
    '<form action="https://evil.example/">'
    '<button formaction="javascript:alert(1)">x</button></form>',
    "<input autofocus onfocus=alert(1)>",
    '<a href="/" class="button message success">Your grade was changed</a>',
    '<h2 id="source">clobber</h2><p id="gutter">x</p>',
    "<body onload=alert(1)>",
    '"><img src=x onerror=alert(1)>',
    "'><svg onload=alert(1)>",
    "<IMG SRC=JaVaScRiPt:alert('XSS')>",
    "<img src=x:alert(alt) onerror=eval(src) alt=0>",
    "<svg><animate onbegin=alert(1) attributeName=x dur=1s>",
    '<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">x</text></a></svg>',
    "<select><template><style><img src=x onerror=alert(1)>",
    "<noscript><img src=x onerror=alert(1)></noscript>",
    '<object data="data:text/html,<script>alert(1)</script>"></object>',
    '<embed src="javascript:alert(1)">',
    "<svg><script>alert(1)</script></svg>",
    "<scr\u200bipt>alert(1)</scr\u200bipt>",
    "<style>@import 'https://evil.example/x.css';</style>",
    "`<img src=x onerror=alert(1)>`",
    "```\n<script>alert(1)</script>\n```",
    "| a | b |\n|---|--:|\n| <img src=x onerror=alert(1)> | $\\text{<svg onload=alert(1)>}$ |",
]

PAYLOADS = MATH + MARKUP

# Legitimate text that must still render as math, tables and code after sanitizing.
LEGITIMATE = {
    "fraction": (r"$\frac{a}{b}$", ["mfrac"]),
    "subscript": (r"$x_i + y^2$", ["msub", "msup"]),
    "text": (r"$\text{peak compute} / \text{bandwidth}$", ["mtext"]),
    "display": (r"$$t = \frac{80\,\mathrm{GB}}{3.35\,\mathrm{TB/s}}$$", ["math", "mfrac"]),
    "matrix": (r"$\begin{pmatrix}1 & 2\\ 3 & 4\end{pmatrix}$", ["mtable", "mtr", "mtd"]),
    "root": (r"$\sqrt{n} \le \sqrt[3]{m}$", ["msqrt", "mroot"]),
    "table": ("| GPU | TB/s |\n|---|--:|\n| H100 | 3.35 |", ["table", "th", "td"]),
    "code": ("Use `kv_cache_bytes` here.", ["code"]),
    "block code": ("```\nweights = params * bytes\n```", ["pre", "code"]),
    "link": ("[the datasheet](https://www.nvidia.com/en-us/data-center/h100/)", ["a"]),
}

FORBIDDEN_TAGS = {
    "script", "iframe", "object", "embed", "style", "foreignobject", "base", "meta", "link",
    "form", "input", "button", "textarea", "select", "frame", "frameset", "applet", "svg",
    "mglyph", "annotation-xml", "maction", "template", "noscript", "body", "html", "head",
}  # fmt: skip
URL_ATTRIBUTES = {"href", "src", "xlink:href", "action", "formaction", "data", "srcset"}
# What the pages' own scripts look up by id; text must not take these over.
SITE_IDS = {"source", "gutter", "main"}
SITE_CLASSES = {"button", "message", "success", "error", "link-button", "role-badge"}
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:")
_BLANKS = re.compile(r"[\x00-\x20\u200b]+")


def active_content(html: str, *, fragment: bool = True) -> list[str]:
    """Every element, attribute or URL in `html` that could act; [] when it is inert."""
    tree = LexborHTMLParser(html)
    root = tree.body if fragment else tree.root
    found = []
    nodes = list(root.traverse(include_text=False)) if root is not None else []
    for index, node in enumerate(nodes):
        tag = node.tag.lower()
        if fragment and tag in FORBIDDEN_TAGS and index > 0:
            found.append(f"<{tag}>")
        for name, value in (node.attributes or {}).items():
            name = name.lower()
            value = value or ""
            if name.startswith("on") or name in {"style", "srcdoc"}:
                found.append(f"<{tag} {name}>")
            if name in URL_ATTRIBUTES:
                url = _BLANKS.sub("", value).lower()
                if tag != "a" or name != "href":
                    if _SCHEME.match(url) or url.startswith("//"):
                        found.append(f"<{tag} {name}={value!r}>")
                elif url.startswith(("javascript:", "data:", "vbscript:")):
                    found.append(f"<{tag} {name}={value!r}>")
            if name == "id" and value in SITE_IDS and fragment:
                found.append(f"<{tag} id={value!r}>")
            if name == "class" and fragment and SITE_CLASSES & set(value.split()):
                found.append(f"<{tag} class={value!r}>")
    return found


def element_tags(html: str) -> set[str]:
    tree = LexborHTMLParser(html)
    return {node.tag.lower() for node in tree.body.traverse(include_text=False)}


PAGE_FORBIDDEN_TAGS = {
    "iframe", "object", "embed", "style", "foreignobject", "base", "frame", "frameset",
    "applet", "mglyph", "annotation-xml", "maction",
}  # fmt: skip


def page_active_content(html: str, *, svg_allowed: bool = False) -> list[str]:
    """Like `active_content`, for a whole page: its own forms and static scripts are fine, but
    no inline script, no script from elsewhere and nothing the corpus smuggles in."""
    found = active_content(html, fragment=False)
    tree = LexborHTMLParser(html)
    for node in tree.root.traverse(include_text=False):
        tag = node.tag.lower()
        if tag in PAGE_FORBIDDEN_TAGS or (tag == "svg" and not svg_allowed):
            found.append(f"<{tag}>")
        if tag == "script":
            src = (node.attributes or {}).get("src") or ""
            if not src.startswith("/static/") or (node.text() or "").strip():
                found.append(f"<script src={src!r}>")
        if tag == "link" and not ((node.attributes or {}).get("href") or "").startswith("/"):
            found.append("<link> to elsewhere")
    return found
