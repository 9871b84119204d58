from __future__ import annotations

from html.parser import HTMLParser

# What Chromium and Firefox send for a page they navigate to.
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


class Links(HTMLParser):
    """The hrefs of a page's <a> and <link> elements, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.anchors: list[str] = []
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "a" and "href" in attributes:
            self.anchors.append(attributes["href"])
        if tag == "link":
            self.links.append((attributes.get("rel", ""), attributes.get("href", "")))


def links_of(response) -> Links:
    parser = Links()
    parser.feed(response.content.decode())
    return parser
