"""cases.markdown: each construct of the subset, in English and Korean; what it refuses;
hostile input; the plain text; the cache."""

import re
import time
from html.parser import HTMLParser

import pytest
from django.template import Context, Template
from hypothesis import given, settings
from hypothesis import strategies as st

from cases import markdown
from cases.markdown import plain, render
from cases.templatetags.library import Translated

# --- each construct, in both languages ---------------------------------------------------

CONSTRUCTS = [
    ("paragraphs", "{a}\n\n{b}", "<p>{a}</p>\n<p>{b}</p>"),
    ("soft line break", "{a}\n{b}", "<p>{a}\n{b}</p>"),
    ("hard line break", "{a}  \n{b}", "<p>{a}<br>\n{b}</p>"),
    ("bulleted list", "- {a}\n- {b}", "<ul>\n<li>{a}</li>\n<li>{b}</li>\n</ul>"),
    ("numbered list", "1. {a}\n2. {b}", "<ol>\n<li>{a}</li>\n<li>{b}</li>\n</ol>"),
    ("numbered from 3", "3. {a}\n4. {b}", '<ol start="3">\n<li>{a}</li>\n<li>{b}</li>\n</ol>'),
    (
        "nested list",
        "- {a}\n  - {b}",
        "<ul>\n<li>{a}\n<ul>\n<li>{b}</li>\n</ul>\n</li>\n</ul>",
    ),
    (
        "link",
        "[{a}](https://example.org/x)",
        '<p><a href="https://example.org/x" rel="nofollow noopener">{a}</a></p>',
    ),
    (
        "link with a title",
        '[{a}](https://example.org/x "{b}")',
        '<p><a href="https://example.org/x" title="{b}" rel="nofollow noopener">{a}</a></p>',
    ),
    (
        "autolink",
        "<https://example.org/x>",
        '<p><a href="https://example.org/x" rel="nofollow noopener">https://example.org/x</a></p>',
    ),
    (
        "mail link",
        "[{a}](mailto:ops@example.org)",
        '<p><a href="mailto:ops@example.org" rel="nofollow noopener">{a}</a></p>',
    ),
    ("emphasis", "*{a}*", "<p><em>{a}</em></p>"),
    ("strong", "**{a}**", "<p><strong>{a}</strong></p>"),
    ("inline code", "`{a}`", "<p><code>{a}</code></p>"),
    ("fenced code", "```sh\n{a}\n```", "<pre><code>{a}\n</code></pre>"),
    ("indented code", "    {a}", "<pre><code>{a}\n</code></pre>"),
    ("block quote", "> {a}", "<blockquote>\n<p>{a}</p>\n</blockquote>"),
    ("thematic break", "{a}\n\n***\n\n{b}", "<p>{a}</p>\n<hr>\n<p>{b}</p>"),
    ("escaped syntax", "\\*{a}\\* \\_x\\_", "<p>*{a}* _x_</p>"),
]
WORDS = {"en": ("queue depth", "retry storm"), "ko": ("큐 깊이", "재시도 폭주")}


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize(("name", "source", "html"), CONSTRUCTS, ids=[c[0] for c in CONSTRUCTS])
def test_each_construct_renders(language, name, source, html):
    a, b = WORDS[language]
    assert render(source.format(a=a, b=b)) == html.format(a=a, b=b)


def test_korean_emphasis_before_a_particle():
    # Korean particles attach to the word: the closing ** sits between two letters.
    assert (
        render("**장애**는 **DNS**에서")
        == "<p><strong>장애</strong>는 <strong>DNS</strong>에서</p>"
    )


def test_a_korean_link_address_is_percent_encoded_and_kept():
    assert render("[문서](https://example.org/한글)") == (
        '<p><a href="https://example.org/%ED%95%9C%EA%B8%80" rel="nofollow noopener">문서</a></p>'
    )


def test_snake_case_words_stay_as_written():
    assert render("raised max_wal_senders and pg_basebackup") == (
        "<p>raised max_wal_senders and pg_basebackup</p>"
    )


@pytest.mark.parametrize(
    "source",
    ["# Root cause", "## 원인", "Root cause\n===", "Root cause\n---", "###### six"],
)
def test_headings_are_off(source):
    html = render(source)
    assert not re.search(r"<h\d", html)
    assert "Root cause" in html or "원인" in html or "six" in html


def test_a_line_starting_with_a_hash_stays_as_written():
    assert render("#3 was the node that failed") == "<p>#3 was the node that failed</p>"


def test_an_image_without_a_description_shows_its_address_decoded():
    assert render("![](https://example.org/한)") == (
        '<p><a href="https://example.org/%ED%95%9C" rel="nofollow noopener">'
        "https://example.org/한</a></p>"
    )
    assert plain("![](https://example.org/한)") == "https://example.org/한"


def test_an_image_becomes_a_link_to_it():
    assert render("![the graph](https://example.org/g.png)") == (
        '<p><a href="https://example.org/g.png" rel="nofollow noopener">the graph</a></p>'
    )
    assert render("![](https://example.org/g.png)") == (
        '<p><a href="https://example.org/g.png" rel="nofollow noopener">'
        "https://example.org/g.png</a></p>"
    )


def test_no_tables():
    assert "<table" not in render("| a | b |\n|---|---|\n| 1 | 2 |")


def test_empty_and_blank_texts_render_nothing():
    assert render("") == "" and render("  \n\n ") == "" and render(None) == ""


def test_render_takes_a_translated_text():
    assert render(Translated("- a", "en", True)) == "<ul>\n<li>a</li>\n</ul>"


def test_the_filters_in_a_template():
    template = Template("{% load library %}{{ text|markdown }}|{{ text|plaintext }}")
    out = template.render(Context({"text": Translated("**a** [b](https://e.org)\n\nc", "en", 0)}))
    assert out == (
        '<p><strong>a</strong> <a href="https://e.org" rel="nofollow noopener">b</a></p>\n'
        "<p>c</p>|a b c"
    )


# --- what is refused ----------------------------------------------------------------------

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<div onclick="alert(1)">block</div>\n\n<iframe src="https://evil.example"></iframe>',
    "[x](javascript:alert(1))",
    "[x](JAVASCRIPT:alert(1))",
    "[x]( javascript:alert(1) )",
    "[x](&#106;avascript:alert(1))",
    "[x](&#x6A;avascript&#58;alert(1))",
    "[x](java&#x09;script:alert(1))",
    "[x](javascript&colon;alert(1))",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](file:///etc/passwd)",
    "[x](/admin/)",
    "[x](//evil.example/)",
    "[x][r]\n\n[r]: javascript:alert(1)",
    "<javascript:alert(1)>",
    "<JavaScript:alert(1)>",
    "<data:text/html,hi>",
    "![i](https://example.org/i.png)",
    "![i](javascript:alert(1))",
    "![i](data:image/png;base64,iVBORw0KGgo=)",
    '[x](https://e.org "\\" onmouseover=\\"alert(1)")',
    "[x](https://e.org 'a\" onmouseover=\"alert(1)')",
    '[x](https://e.org/"onmouseover="alert(1))',
    '[x](<https://e.org/" onmouseover="alert(1)>)',
    "`<script>alert(1)</script>`",
    "```html\n<script>alert(1)</script>\n```",
    "<!-- a comment --><style>body{}</style>",
    '<a href="javascript:alert(1)">x</a>',
]


class Elements(HTMLParser):
    """Every element's tag and attributes in some HTML."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.found = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def problems_in(html):
    """What the sanitiser should never let through."""
    problems = []
    for tag, attributes in Elements(html).found:
        if tag not in markdown.TAGS:
            problems.append(f"tag {tag}")
        allowed = markdown.ATTRIBUTES.get(tag, set()) | ({"rel"} if tag == "a" else set())
        problems += [f"{tag}[{name}]" for name in attributes if name not in allowed]
        problems += [f"{tag}[{name}]" for name in attributes if name.lower().startswith("on")]
        href = attributes.get("href")
        if href is not None and not re.match(r"(https?://|mailto:)", href):
            problems.append(f"href {href!r}")
        if tag == "a" and attributes.get("rel") != "nofollow noopener":
            problems.append(f"rel {attributes.get('rel')!r}")
    return problems


@pytest.mark.parametrize("source", HOSTILE)
def test_hostile_markdown_renders_harmless(source):
    html = render(source)
    assert problems_in(html) == []
    assert "<script" not in html and "<img" not in html and "<iframe" not in html
    assert not re.search(r"<a [^>]*href=\"(?!https?://|mailto:)", html)


def test_refused_links_are_shown_as_written():
    assert render("[x](javascript:alert(1))") == "<p>[x](javascript:alert(1))</p>"
    assert render("<javascript:alert(1)>") == "<p>&lt;javascript:alert(1)&gt;</p>"
    assert render("[x](/admin/)") == "<p>[x](/admin/)</p>"


def test_raw_html_is_shown_as_text():
    assert (
        render("<b>bold</b> & <i>co</i>")
        == "<p>&lt;b&gt;bold&lt;/b&gt; &amp; &lt;i&gt;co&lt;/i&gt;</p>"
    )


def test_a_link_title_cannot_add_attributes():
    html = render('[x](https://e.org "\\" onmouseover=\\"alert(1)")')
    assert Elements(html).found == [
        ("p", {}),
        (
            "a",
            {
                "href": "https://e.org",
                "title": '" onmouseover="alert(1)',
                "rel": "nofollow noopener",
            },
        ),
    ]


def test_the_sanitiser_drops_what_the_parser_never_makes():
    # A second line of defence: were the parser ever to let HTML through, nh3 keeps only
    # the allow-list, with links of the three schemes and their rel.
    dirty = (
        '<p onclick="x"><img src=x onerror=alert(1)><a href="javascript:alert(1)">a</a>'
        '<a href="/relative">b</a><a href="https://e.org" target="_blank" rel="opener">c</a>'
        "<script>alert(1)</script><h1>h</h1><table><tr><td>t</td></tr></table></p>"
    )
    clean = markdown.CLEANER.clean(dirty)
    assert problems_in(clean) == []
    assert '<a href="https://e.org" rel="nofollow noopener">c</a>' in clean
    assert "alert(1)" not in clean


DEEP = 100_000
NESTING = {
    "block quotes": ">" * DEEP + " deep",
    "block quotes with spaces": "> " * DEEP + "deep",
    "bullets": "- " * DEEP + "deep",
    "numbered": "1. " * DEEP + "deep",
    "indented bullets": "".join("  " * i + "- x\n" for i in range(2_000)),
    "brackets": "[" * DEEP + "deep",
    "image brackets": "![" * (DEEP // 2),
    "asterisks": "*" * DEEP + "deep",
    "emphasis": "*a " * (DEEP // 3) + "b*" * (DEEP // 3),
    "underscores": "_" * DEEP + "deep",
    "backticks": "`" * DEEP + "deep",
    "angles": "<" * DEEP + "deep",
}


@pytest.mark.parametrize("source", NESTING.values(), ids=NESTING.keys())
def test_huge_nesting_finishes_quickly_with_bounded_output(source):
    html, render_took = timed(render, source)
    text, plain_took = timed(plain, source)
    # Measured at 0.01 to 1.5 s each on an idle two-core machine, three times that on a
    # busy one (the slowest: "image brackets", each `![` looking MAX_NESTING levels ahead);
    # linear in the length, and a text is at most 50,000 characters. A quadratic parser
    # would take hours here; the bound leaves room for a busy machine.
    assert render_took < 30 and plain_took < 30
    assert len(html) <= 5 * len(source) + 1000
    assert len(text) <= 2 * len(source)
    assert problems_in(html) == []


def test_nesting_beyond_the_limit_is_cut_off():
    html = render(">" * 50 + " deep")
    assert html.count("<blockquote>") == markdown.MAX_NESTING
    assert "deep" not in html


# --- any text ------------------------------------------------------------------------------

FRAGMENTS = st.sampled_from(
    [
        "<script>",
        "</script>",
        "<img src=x onerror=alert(1)>",
        "javascript:",
        "JaVaScRiPt:",
        "vbscript:",
        "data:text/html,",
        "&#106;",
        "&#x6A;",
        "&colon;",
        "&#58;",
        "&#x09;",
        "[x](",
        "](",
        "![",
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        '"',
        "'",
        " onmouseover=",
        "https://e.org/",
        "mailto:a@e.org",
        "//evil.example",
        "/rel",
        "\n",
        "\n\n",
        "> ",
        "- ",
        "* ",
        "1. ",
        "    ",
        "```",
        "`",
        "*",
        "**",
        "_",
        "\\",
        "#",
        "---",
        "===",
        "<a href=",
        "<https://e.org>",
        "<javascript:alert(1)>",
        "[r]: ",
        "\t",
        "&amp;",
        "큐",
        "장애",
        " ",
    ]
)
ANY_TEXT = st.lists(FRAGMENTS | st.text(max_size=4), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(ANY_TEXT)
def test_any_text_renders_only_allowed_tags_attributes_and_links(text):
    assert problems_in(render(text)) == []


@settings(max_examples=200, deadline=None)
@given(ANY_TEXT)
def test_plain_text_of_any_text_has_no_html_the_text_did_not_have(text):
    result = plain(text)
    assert "<" not in result or "<" in text
    assert len(result) <= 3 * len(text)


# --- plain text ------------------------------------------------------------------------------


def test_plain_text_has_no_markdown_syntax():
    source = (
        "The **queue** filled *up*:\n\n- a slow `consumer`\n- see [the postmortem](https://e.org/pm)"
        "\n\n3. three\n4. four\n\n> quoted\n\n![graph](https://e.org/g.png)\n\n```\ncode\n```"
    )
    assert plain(source) == (
        "The queue filled up:\n\n• a slow consumer\n\n• see the postmortem\n\n3. three"
        "\n\n4. four\n\nquoted\n\ngraph\n\ncode"
    )


def test_plain_text_in_korean():
    assert plain("**장애**는 [DNS](https://e.org)에서 시작됐다.\n\n- 첫째\n- 둘째") == (
        "장애는 DNS에서 시작됐다.\n\n• 첫째\n\n• 둘째"
    )


def test_plain_text_keeps_raw_html_as_text_and_decodes_entities():
    assert plain("<b>x</b> AT&amp;T") == "<b>x</b> AT&T"


def test_plain_text_numbers_items_as_a_reader_sees_them():
    assert plain("1. a\n1. b\n1. c") == "1. a\n\n2. b\n\n3. c"


# --- cost ----------------------------------------------------------------------------------


def test_repeated_texts_come_from_the_cache():
    text = "A text rendered twice: **once**."
    render(text)
    hits = markdown.cached_html.cache_info().hits
    assert render(text) == "<p>A text rendered twice: <strong>once</strong>.</p>"
    assert markdown.cached_html.cache_info().hits == hits + 1


def test_long_texts_are_not_cached():
    text = "word " * (markdown.CACHED_TEXT_LENGTH // 5 + 1)
    misses = markdown.cached_html.cache_info().misses
    render(text)
    assert markdown.cached_html.cache_info().misses == misses


def test_a_cold_render_of_a_nine_kilobyte_text_is_cheap():
    paragraph = (
        "The deploy job queue filled up because a **slow consumer** held its lease; "
        "see [the runbook](https://example.org/runbook) and `queue_depth`.\n\n"
        "- paused producers\n- scaled consumers\n\n"
    )
    text = (paragraph * 100)[:9000]
    best = min(timed(markdown.to_html, text + str(n))[1] for n in range(5))
    # Measured at about 1 ms on a two-core machine; the bound catches a parser gone
    # quadratic, not a busy machine.
    assert best < 0.05


def timed(function, *args):
    started = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - started
