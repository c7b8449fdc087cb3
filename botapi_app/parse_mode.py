"""parse_mode: HTML, MarkdownV2 and (legacy) Markdown text into plain text and stored
entities (UTF-16 offsets), with the Bot API's "can't parse entities" errors."""

from __future__ import annotations

from html.parser import HTMLParser

from .errors import BadRequest
from .shapes import utf16_len

_HTML_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strike",
    "strike": "strike",
    "del": "strike",
    "code": "code",
    "pre": "pre",
    "a": "textUrl",
    "tg-spoiler": "spoiler",
    "blockquote": "blockquote",
}


def _error(detail: str) -> BadRequest:
    return BadRequest(f"can't parse entities: {detail}")


class _Html(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.length = 0
        self.open: list[tuple[str, int, dict]] = []
        self.entities: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "span" and attrs.get("class") == "tg-spoiler":
            kind = "spoiler"
        elif tag == "br":
            self.handle_data("\n")
            return
        else:
            kind = _HTML_TAGS.get(tag)
        if kind is None:
            raise _error(f'unsupported start tag "{tag}" at byte offset {self.getpos()[1]}')
        extra = {}
        if kind == "textUrl":
            href = attrs.get("href") or ""
            if href.startswith("tg://user?id="):
                kind, extra = "mentionName", {"user_id": int(href.split("=", 1)[1] or 0)}
            else:
                extra = {"url": href}
        if kind == "code" and self.open and self.open[-1][0] == "pre":
            lang = (attrs.get("class") or "").removeprefix("language-")
            if lang:
                self.open[-1][2]["language"] = lang
            self.open.append(("", self.length, {}))  # the code inside pre is the pre
            return
        self.open.append((kind, self.length, extra))

    def handle_endtag(self, tag):
        if tag == "br":
            return
        if not self.open:
            raise _error(f'unexpected end tag "{tag}" at byte offset {self.getpos()[1]}')
        kind, start, extra = self.open.pop()
        if kind and self.length > start:
            self.entities.append({"type": kind, "offset": start, "length": self.length - start, **extra})

    def handle_data(self, data):
        self.text.append(data)
        self.length += utf16_len(data)


def parse_html(source: str) -> tuple[str, list[dict]]:
    p = _Html()
    p.feed(source)
    p.close()
    if p.open:
        raise _error(f'can\'t find end tag corresponding to start tag "{p.open[-1][0] or "code"}"')
    return "".join(p.text), sorted(p.entities, key=lambda e: (e["offset"], -e["length"]))


_V2_MARKS = [
    ("```", "pre"),
    ("||", "spoiler"),
    ("__", "underline"),
    ("*", "bold"),
    ("_", "italic"),
    ("~", "strike"),
    ("`", "code"),
]
_V2_RESERVED = set("_*[]()~`>#+-=|{}.!")


def parse_markdown_v2(source: str) -> tuple[str, list[dict]]:
    out: list[str] = []
    length = 0
    open_: list[tuple[str, str, int, str]] = []  # (mark, kind, start, language)
    links: list[int] = []
    entities: list[dict] = []
    i = 0

    def emit(s: str) -> None:
        nonlocal length
        out.append(s)
        length += utf16_len(s)

    while i < len(source):
        c = source[i]
        in_code = bool(open_) and open_[-1][1] in ("code", "pre")
        if c == "\\" and i + 1 < len(source):
            emit(source[i + 1])
            i += 2
            continue
        if in_code:
            mark = open_[-1][0]
            if source.startswith(mark, i):
                _, kind, start, language = open_.pop()
                entities.append({"type": kind, "offset": start, "length": length - start})
                if language:
                    entities[-1]["language"] = language
                i += len(mark)
            else:
                emit(c)
                i += 1
            continue
        for mark, kind in _V2_MARKS:
            if source.startswith(mark, i):
                if open_ and open_[-1][0] == mark:
                    _, kind, start, language = open_.pop()
                    if length > start:
                        entities.append({"type": kind, "offset": start, "length": length - start})
                        if language:
                            entities[-1]["language"] = language
                    i += len(mark)
                else:
                    i += len(mark)
                    language = ""
                    if kind == "pre":
                        # ```lang\n opens a block in that language; the newline is not text.
                        nl = source.find("\n", i)
                        first = source[i:nl] if nl != -1 else ""
                        if first and " " not in first:
                            language, i = first, nl + 1
                    open_.append((mark, kind, length, language))
                break
        else:
            if c == "[":
                links.append(length)
                i += 1
            elif c == "]" and links and source.startswith("(", i + 1):
                end, chars = i + 2, []
                while end < len(source) and source[end] != ")":
                    if source[end] == "\\" and end + 1 < len(source):
                        end += 1  # inside a URL only ")" and "\\" are escaped
                    chars.append(source[end])
                    end += 1
                if end >= len(source):
                    raise _error(f"can't find end of a URL at byte offset {len(source[:i].encode())}")
                start = links.pop()
                url = "".join(chars)
                if url.startswith("tg://user?id="):
                    entities.append(
                        {
                            "type": "mentionName",
                            "offset": start,
                            "length": length - start,
                            "user_id": int(url.split("=", 1)[1] or 0),
                        }
                    )
                else:
                    entities.append(
                        {"type": "textUrl", "offset": start, "length": length - start, "url": url}
                    )
                i = end + 1
            elif c in _V2_RESERVED:
                raise _error(f"Character '{c}' is reserved and must be escaped with the preceding '\\'")
            else:
                emit(c)
                i += 1
    if open_ or links:
        raise _error(
            f"can't find end of {open_[-1][1] if open_ else 'text_link'} entity at byte offset {len(source.encode())}"
        )
    return "".join(out), sorted(entities, key=lambda e: (e["offset"], -e["length"]))


_V1_MARKS = [("```", "pre"), ("*", "bold"), ("_", "italic"), ("`", "code")]


def parse_markdown(source: str) -> tuple[str, list[dict]]:
    """The legacy Markdown: no nesting, no escapes but for the marks themselves."""
    out: list[str] = []
    length = 0
    entities: list[dict] = []
    i = 0
    while i < len(source):
        for mark, kind in _V1_MARKS:
            if source.startswith(mark, i):
                end = source.find(mark, i + len(mark))
                if end == -1:
                    raise _error(
                        f"can't find end of the entity starting at byte offset {len(source[:i].encode())}"
                    )
                inner = source[i + len(mark) : end]
                if inner:
                    entities.append({"type": kind, "offset": length, "length": utf16_len(inner)})
                out.append(inner)
                length += utf16_len(inner)
                i = end + len(mark)
                break
        else:
            c = source[i]
            if c == "[":
                close = source.find("](", i)
                end = source.find(")", close + 2) if close != -1 else -1
                if close != -1 and end != -1:
                    inner = source[i + 1 : close]
                    entities.append(
                        {
                            "type": "textUrl",
                            "offset": length,
                            "length": utf16_len(inner),
                            "url": source[close + 2 : end],
                        }
                    )
                    out.append(inner)
                    length += utf16_len(inner)
                    i = end + 1
                    continue
            out.append(c)
            length += utf16_len(c)
            i += 1
    return "".join(out), entities


def parse(text: str, parse_mode: str | None) -> tuple[str, list[dict]] | None:
    """(text, entities) for a known parse_mode, None without one."""
    mode = (parse_mode or "").strip().lower()
    if not mode:
        return None
    if mode == "html":
        return parse_html(text)
    if mode == "markdownv2":
        return parse_markdown_v2(text)
    if mode == "markdown":
        return parse_markdown(text)
    raise BadRequest("unsupported parse_mode")
