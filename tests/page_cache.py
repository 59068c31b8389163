"""Pages as the page cache answers them, against pages rendered afresh."""

from django.core.cache import cache


def fresh(client, url):
    """The page at `url` rendered afresh: the page cache emptied first."""
    cache.clear()
    return client.get(url).content


def walk_through_changes(client, urls, change, steps):
    """Request every page, make two changes (`change(step)`), and request every page again;
    `steps` times. Each answer is checked against the page rendered afresh (the cache
    emptied). Returns the set of X-Cache answers met."""
    answers = set()
    for step in range(0, 2 * steps, 2):
        for url in urls:
            client.get(url)
        change(step)
        change(step + 1)
        cached = {}
        for url in urls:
            response = client.get(url)
            answers.add(response["X-Cache"])
            cached[url] = response.content
        cache.clear()
        for url in urls:
            assert client.get(url).content == cached[url], (step, url)
    return answers
