import re

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_graph_renders_and_a_node_click_filters_the_list(page, bundled_site, screenshot):
    page.goto(f"{bundled_site}/en/cases/?org=hugging-face")
    page.get_by_role("link", name=re.compile("See these cases as a graph")).click()
    page.wait_for_url(re.compile(r"/en/graph/\?org=hugging-face"))
    page.get_by_role("link", name="Component", exact=True).click()
    page.wait_for_url(re.compile(r"tab=component"))
    canvas = page.locator("#graph-canvas")
    # A function, not an expression: Playwright re-evaluates an expression with eval(),
    # which the site's Content Security Policy refuses.
    page.wait_for_function("() => document.getElementById('graph-canvas').dataset.ready > 0")
    assert int(canvas.get_attribute("data-ready")) >= 3
    assert page.locator(".graph-tools").is_visible()
    screenshot(page, "graph-component-en")

    # Click the node of one component where the drawing shows it.
    position = page.evaluate(
        """() => {
            const node = window.incidentGraph.nodes()
                .filter(n => n.data('label').startsWith('Shared filesystem'))[0];
            window.incidentGraph.center(node);
            const p = node.renderedPosition();
            return {x: p.x, y: p.y};
        }"""
    )
    box = canvas.bounding_box()
    page.mouse.click(box["x"] + position["x"], box["y"] + position["y"])
    page.wait_for_url(re.compile(r"/en/cases/\?org=hugging-face&component=shared-filesystem$"))
    assert page.locator(".chip .chip-value").all_inner_texts() == [
        "Shared filesystem",
        "Hugging Face",
    ]
    assert page.locator(".results-heading .count").inner_text() == "1 case"


def test_graph_keyboard_and_korean(page, bundled_site, screenshot):
    page.goto(f"{bundled_site}/ko/graph/?tab=cause")
    page.wait_for_function("() => document.getElementById('graph-canvas').dataset.ready > 0")
    before = page.evaluate("window.incidentGraph.pan().x")
    page.locator("#graph-canvas").focus()
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("window.incidentGraph.pan().x") != before
    zoom = page.evaluate("window.incidentGraph.zoom()")
    page.get_by_role("button", name="확대").click()
    assert page.evaluate("window.incidentGraph.zoom()") > zoom
    assert "가장 강한 연결" in page.locator(".graph-table caption").inner_text()
    screenshot(page, "graph-cause-ko")
