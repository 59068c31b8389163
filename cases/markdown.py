"""The case texts' Markdown: what a summary, a trigger, ... or a step looks like on a page
(`render`), and what it says in plain text (`plain`), for feeds and descriptions.

The subset is CommonMark's, less what a section of a case page has no room for:
paragraphs, lists (bulleted and numbered, nested), links, emphasis and strong emphasis,
inline code, code blocks (fenced or indented), block quotes, thematic breaks and hard line
breaks. Raw HTML is shown as the text it is (`html=False`). An image becomes a link to the
image, with its description as the link's text: the site shows no pictures from elsewhere
(nor does its CSP allow them). Headings are off, `#` and the underlined forms alike: a text
is already a section under its own heading (an h2 below a case page's h1, an h3 below a card's h2),
so any heading in it either outranks its section or starts an outline inside a list card
that shows four lines of it; and a paragraph followed by a line of `---` or `===`, which
plain text often has, would quietly become one. A line starting with `#` stays as written.

Links are http, https or mailto only, checked twice: by the parser (any other link stays the
text it was written as, so `[x](javascript:...)` shows as typed) and by nh3, which keeps
exactly the tags and attributes below and adds `rel="nofollow noopener"` to every link.

Speed (an idle two-core machine): a cold render costs about 0.02 ms a text and 0.05 µs a
character: 0.5 ms for a 9 kB text; 5.6 ms for a list page of twenty synthetic cards (120
texts, 62k characters; 7 ms in Korean), where the old paragraph split cost nothing. So texts
come from an in-process LRU (`CACHE_SIZE` texts of up to `CACHED_TEXT_LENGTH` characters: at
most about 20 MB a process for prose, Hangul counting two bytes a character; twice that
for texts made of `<` and `&`, which grow fourfold), and that list page's
texts then cost 0.14 ms: a page rendered again after the page cache moved on (every approval
moves it) renders its texts for nothing. Hostile input is linear too: 50,000 characters (the
limit of a text) of the slowest pattern found, `![` repeated, take 0.7 s; nesting deeper
than `MAX_NESTING` (`>`, list markers) is cut off there, with what lies deeper left out.
"""

import functools

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML

LINK_SCHEMES = ("http", "https", "mailto")
LINK_REL = "nofollow noopener"
# Every tag and attribute the parser below produces; nh3 drops anything else.
TAGS = frozenset(
    {"p", "br", "hr", "ul", "ol", "li", "a", "em", "strong", "code", "pre", "blockquote"}
)
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
MAX_NESTING = 20  # markdown-it's CommonMark default; a real case nests three deep at most
CACHE_SIZE = 1024
CACHED_TEXT_LENGTH = 4000


def link_allowed(url):
    """markdown-it's check of a link, after it decoded entities and normalised the URL: so
    `&#106;avascript:`, `JAVASCRIPT:` and a tab inside the scheme are all refused here."""
    scheme, colon, rest = url.partition(":")
    return bool(colon) and scheme.lower() in LINK_SCHEMES and bool(rest.strip("/"))


def image_as_link(self, tokens, idx, options, env):
    """An image is shown as a link to it, its description as the link's text."""
    token = tokens[idx]
    description = self.renderInlineAsText(token.children, options, env)
    source = token.attrGet("src") or ""
    if not source:  # refused by link_allowed: the description alone
        return escapeHtml(description)
    shown = description or PARSER.normalizeLinkText(source)  # the address, decoded
    return f'<a href="{escapeHtml(source)}">{escapeHtml(shown)}</a>'


def make_parser():
    parser = MarkdownIt("commonmark", {"html": False, "maxNesting": MAX_NESTING, "xhtmlOut": False})
    parser.disable(["heading", "lheading", "html_block", "html_inline"])
    parser.validateLink = link_allowed
    parser.add_render_rule("image", image_as_link)
    # A fence's language would be a class attribute that nothing styles: a fence renders
    # as an indented block does.
    parser.add_render_rule("fence", RendererHTML.code_block)
    return parser


PARSER = make_parser()
CLEANER = nh3.Cleaner(
    tags=set(TAGS),
    attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
    link_rel=LINK_REL,
    url_schemes=set(LINK_SCHEMES),
    url_relative="deny",
    strip_comments=True,
)


def to_html(text):
    """The text's HTML, parsed and sanitised: what `render` caches."""
    return CLEANER.clean(PARSER.render(text)).strip()


@functools.lru_cache(maxsize=CACHE_SIZE)
def cached_html(text):
    return to_html(text)


def render(text) -> SafeString:
    """A case text (a str, or anything whose str() is one) as safe HTML."""
    text = str(text or "")
    if not text.strip():
        return mark_safe("")
    html = cached_html(text) if len(text) <= CACHED_TEXT_LENGTH else to_html(text)
    return mark_safe(html)  # nh3 kept only the tags and attributes above


def plain(text) -> str:
    """What the text says, without its Markdown: each paragraph, list item or code block
    on its own, separated by blank lines; a bulleted item after a `• `, a numbered one after
    the number a reader sees (`3. `); a link as its text, an image as its description (or
    its address)."""
    blocks = []
    numbers = []  # the next number of each list the token is in (None: bulleted)
    prefix = ""
    for token in PARSER.parse(str(text or "")):
        if token.type == "ordered_list_open":
            numbers.append(int(token.attrGet("start") or 1))
        elif token.type == "bullet_list_open":
            numbers.append(None)
        elif token.type in ("ordered_list_close", "bullet_list_close"):
            numbers.pop()
        elif token.type == "list_item_open" and numbers[-1] is None:
            prefix = "• "
        elif token.type == "list_item_open":
            prefix = f"{numbers[-1]}. "
            numbers[-1] += 1
        elif token.type == "inline":
            blocks.append(prefix + inline_text(token.children or []))
            prefix = ""
        elif token.type in ("code_block", "fence"):
            blocks.append(prefix + token.content.rstrip("\n"))
            prefix = ""
    return "\n\n".join(block for block in blocks if block.strip())


def inline_text(tokens):
    parts = []
    for token in tokens:
        if token.type in ("text", "code_inline"):
            parts.append(token.content)
        elif token.type == "image":
            address = PARSER.normalizeLinkText(token.attrGet("src") or "")
            parts.append(inline_text(token.children or []) or address)
        elif token.type == "softbreak":
            parts.append(" ")
        elif token.type == "hardbreak":
            parts.append("\n")
    return "".join(parts).strip()
