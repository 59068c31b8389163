"""Reading exchange files: one object, an array of objects, or JSON Lines.

`open_inputs` turns the command's paths into a list of `Input`s (file problems reported,
standard input spooled to a temporary file so it can be read twice); `Input.records()`
yields each decoded case object with where it came from.

Nothing here holds more than one case in memory, whatever the size of the file: JSON Lines
are read a line at a time, and a JSON file a chunk at a time, decoding one item of its
array at a time. No case's JSON may be longer than MAX_CASE_BYTES; a longer one is named
and, in a JSON file, ends the reading of that file (its end cannot be found without
reading it whole).
"""

import codecs
import json
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from cases.rules import MAX_CASE_BYTES, MAX_CASE_SIZE_LABEL

from .decoding import decoder, json_type

EXTENSIONS = (".json", ".jsonl")
CHUNK = 64 * 1024
NOT_SPACE = re.compile(r"[^ \t\n\r]")
TOO_LARGE = f"a case may be at most {MAX_CASE_SIZE_LABEL} of JSON"
TOO_DEEP = "nested deeper than the case format allows (a case, a list, an object, a text)"


class ProblemList(list):
    """Problems, of which the first LISTED are kept and the rest only counted: a file of a
    million bad lines is refused with a thousand lines said, not a million held."""

    LISTED = 1000

    def __init__(self):
        super().__init__()
        self.unlisted = 0

    def append(self, problem):
        if len(self) < self.LISTED:
            super().append(problem)
        else:
            self.unlisted += 1

    def extend(self, problems):
        for problem in problems:
            self.append(problem)
        self.unlisted += getattr(problems, "unlisted", 0)

    def clear(self):
        super().clear()
        self.unlisted = 0

    @property
    def count(self):
        return len(self) + self.unlisted

    def said(self):
        """The problems as an import says them, with how many more there were."""
        more = [f"... and {self.unlisted:,} more problem(s), not listed"] if self.unlisted else []
        return list(self) + more


@dataclass(frozen=True)
class Record:
    label: str  # the file, as the person named it
    where: str  # "item 3", "line 7" or "" for a file holding one object
    value: object


class StopReading(Exception):
    """A problem after which the rest of the file cannot be read."""


class TextStream:
    """A file's text, decoded a chunk at a time, that knows the line and column of every
    position in it (as json counts them: both from 1)."""

    def __init__(self, binary):
        self.binary = binary
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text = ""  # the part of the file not yet discarded
        self.lines_before = 0  # newlines in what was discarded
        self.column_before = 0  # characters after the last of them
        self.bytes_read = 0
        self.eof = False

    def fill(self, at_least=CHUNK):
        """Read more of the file (at least `at_least` bytes, or to its end); False at the end."""
        if self.eof:
            return False
        raw = self.binary.read(max(CHUNK, at_least))
        if not self.bytes_read and raw.startswith(codecs.BOM_UTF8):
            raw, self.bytes_read = raw[len(codecs.BOM_UTF8) :], len(codecs.BOM_UTF8)
        pending = len(self.decoder.getstate()[0])
        try:
            self.text += self.decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as error:
            offset = self.bytes_read - pending + error.start
            raise StopReading(
                f"not valid UTF-8 text (byte 0x{error.object[error.start]:02x} at offset {offset})"
            ) from None
        self.bytes_read += len(raw)
        self.eof = not raw
        return bool(raw)

    def discard(self, upto):
        dropped = self.text[:upto]
        if (newlines := dropped.count("\n")) > 0:
            self.lines_before += newlines
            self.column_before = len(dropped) - dropped.rfind("\n") - 1
        else:
            self.column_before += len(dropped)
        self.text = self.text[upto:]

    def where(self, position):
        before = self.text[:position]
        newlines = before.count("\n")
        column = position - before.rfind("\n") if newlines else self.column_before + position + 1
        return f"line {self.lines_before + newlines + 1}, column {column}"

    def invalid(self, message, position):
        return StopReading(f"{self.where(position)}: invalid JSON: {message}")

    def next_value_at(self, position):
        """Where the next non-space character is, reading on as needed; None at the end."""
        while True:
            if found := NOT_SPACE.search(self.text, position):
                return found.start()
            self.discard(len(self.text))
            position = 0
            if not self.fill():
                return None

    def decode_at(self, position):
        """(the JSON value that starts at `position`, where it ends), reading on until the
        value is whole; StopReading if it is invalid, too deep or too large."""
        while True:
            try:
                value, end = decoder.raw_decode(self.text, position)
            except json.JSONDecodeError as error:
                if not self.eof and cut_short(error, self.text):
                    if len(self.text) - position > MAX_CASE_BYTES:
                        raise StopReading(TOO_LARGE) from None
                    self.fill(at_least=len(self.text) - position)
                    continue
                raise self.invalid(error.msg, error.pos) from None
            except RecursionError:
                raise StopReading(TOO_DEEP) from None
            if end == len(self.text) and not self.eof:
                self.fill()  # a number or a word may go on in the next chunk
                continue
            if too_large(self.text, position, end):
                raise StopReading(TOO_LARGE)
            return value, end


# The longest token that a chunk's end can cut, after which a decoder may stop: "\ud83d\ude00".
LONGEST_CUT = 16


def cut_short(error, text):
    """Whether a decoding error may come only from the text's end, not from the JSON: an
    error just before the end, or a string that runs into it."""
    return error.msg.startswith("Unterminated string") or error.pos >= len(text) - LONGEST_CUT


def too_large(text, start, end):
    characters = end - start
    if characters * 4 <= MAX_CASE_BYTES:  # no character takes more than four bytes
        return False
    return characters > MAX_CASE_BYTES or len(text[start:end].encode()) > MAX_CASE_BYTES


@dataclass
class Input:
    label: str
    path: Path
    json_lines: bool | None  # None: decide from the content (standard input)
    temporary: bool = False
    problems: ProblemList = field(default_factory=ProblemList)

    def records(self):
        """Decoded case objects; problems with the file itself go to self.problems."""
        self.problems.clear()
        json_lines = self.json_lines
        if json_lines is None:
            json_lines = looks_like_json_lines(self.path)
        if json_lines:
            yield from self.json_lines_records()
        else:
            yield from self.json_records()

    def json_records(self):
        with self.path.open("rb") as binary:
            stream = TextStream(binary)
            try:
                position = stream.next_value_at(0)
                if position is None:
                    self.problems.append(f"{self.label}: the file is empty: expected a case object")
                    return
                if stream.text[position] == "[":
                    for number, value in array_items(stream, position):
                        yield Record(self.label, f"item {number}", value)
                    return
                value, end = stream.decode_at(position)
                if (extra := stream.next_value_at(end)) is not None:
                    raise stream.invalid("Extra data", extra)
            except StopReading as problem:
                self.problems.append(f"{self.label}: {problem}")
                return
        if isinstance(value, dict):
            yield Record(self.label, "", value)
        else:
            self.problems.append(
                f"{self.label}: the file must hold a case object or an array of case objects, "
                f"not {json_type(value)}"
            )

    def json_lines_records(self):
        """One object a line, read a line at a time: no line is ever held longer than
        MAX_CASE_BYTES, however long it is in the file."""
        seen_any = False
        with self.path.open("rb") as stream:
            number = 0
            while raw := stream.readline(MAX_CASE_BYTES + 1):
                number += 1
                where = f"{self.label}: line {number}"
                if len(raw.rstrip(b"\r\n")) > MAX_CASE_BYTES:
                    while raw and not raw.endswith(b"\n"):  # the rest of the line, unread
                        raw = stream.readline(CHUNK)
                    self.problems.append(f"{where}: {TOO_LARGE}")
                    seen_any = True
                    continue
                if number == 1 and raw.startswith(codecs.BOM_UTF8):
                    raw = raw[len(codecs.BOM_UTF8) :]
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as error:
                    self.problems.append(
                        f"{where}: not valid UTF-8 text "
                        f"(byte 0x{raw[error.start]:02x} at column {error.start + 1})"
                    )
                    continue
                if not line.strip():
                    continue
                seen_any = True
                try:
                    value = decoder.decode(line.rstrip("\r\n"))
                except json.JSONDecodeError as error:
                    self.problems.append(
                        f"{self.label}: line {number}, column {error.colno}: invalid JSON: "
                        f"{error.msg}"
                    )
                    continue
                except RecursionError:
                    self.problems.append(f"{where}: {TOO_DEEP}")
                    continue
                yield Record(self.label, f"line {number}", value)
        if not seen_any and not self.problems:
            self.problems.append(f"{self.label}: the file is empty: expected a case object")


def array_items(stream, position):
    """(number, item) of each item of the array that opens at `position`, decoded one at a
    time; what was read of each is forgotten before the next."""
    position += 1
    first, number = True, 0
    while True:
        position = stream.next_value_at(position)
        if position is None:
            raise stream.invalid("Expecting value", len(stream.text))
        if first and stream.text[position] == "]":
            break
        if not first:
            if stream.text[position] == "]":
                break
            if stream.text[position] != ",":
                raise stream.invalid("Expecting ',' delimiter", position)
            position = stream.next_value_at(position + 1)
            if position is None:
                raise stream.invalid("Expecting value", len(stream.text))
        number += 1
        try:
            value, end = stream.decode_at(position)
        except StopReading as problem:
            if str(problem).startswith("line "):  # where in the file says it already
                raise
            raise StopReading(f"item {number}: {problem}") from None
        yield number, value
        stream.discard(end)
        position, first = 0, False
    if (extra := stream.next_value_at(position + 1)) is not None:
        raise stream.invalid("Extra data", extra)


def looks_like_json_lines(path):
    """For standard input: JSON Lines when its first value, an object, is followed by more."""
    with path.open("rb") as binary:
        stream = TextStream(binary)
        try:
            position = stream.next_value_at(0)
            if position is None or stream.text[position] != "{":
                return False
            _value, end = stream.decode_at(position)
            return stream.next_value_at(end) is not None
        except StopReading:
            return False


def spool(stream):
    """Copy a stream to a temporary file, so that it can be read twice."""
    with tempfile.NamedTemporaryFile(prefix="import-", suffix=".json", delete=False) as file:
        while chunk := stream.read(1 << 20):
            file.write(chunk if isinstance(chunk, bytes) else chunk.encode())
    return Path(file.name)


def open_inputs(paths, stdin=None):
    """Inputs for the given paths, and the problems met while finding them."""
    inputs, problems = [], []
    for name in paths:
        if name == "-":
            spooled = spool(stdin if stdin is not None else sys.stdin.buffer)
            inputs.append(Input("<stdin>", spooled, json_lines=None, temporary=True))
            continue
        path = Path(name)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix in EXTENSIONS and p.is_file())
            if not found:
                problems.append(f"{name}: no .json or .jsonl files in this folder")
            inputs.extend(Input(str(p), p, json_lines=p.suffix == ".jsonl") for p in found)
        elif path.is_file():
            inputs.append(Input(name, path, json_lines=path.suffix == ".jsonl"))
        else:
            problems.append(f"{name}: no such file or folder")
    return inputs, problems
