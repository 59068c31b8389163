"""What several page tests read off a response."""

import re


def text_of(response):
    html = response.content.decode()
    html = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def listed_ids(response):
    return [case.public_id for case in response.context["page"].object_list]
