"""Reading exchange files: one object, an array of objects, or JSON Lines.

`open_inputs` turns the command's paths into a list of `Input`s (file problems
reported, standard input spooled to a temporary file so it can be read twice);
`Input.records()` yields each decoded case object with where it came from.
Nothing here holds a whole library in memory: the importer reads twice.
"""

import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

EXTENSIONS = (".json", ".jsonl")


@dataclass(frozen=True)
class Record:
    label: str  # the file, as the person named it
    where: str  # "item 3", "line 7" or "" for a file holding one object
    value: object


@dataclass
class Input:
    label: str
    path: Path
    json_lines: bool | None  # None: decide from the content (standard input)
    temporary: bool = False
    problems: list[str] = field(default_factory=list)

    def text(self):
        raw = self.path.read_bytes()
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            self.problems.append(
                f"{self.label}: not valid UTF-8 text (byte 0x{raw[error.start]:02x} at offset "
                f"{error.start})"
            )
            return None

    def records(self):
        """Decoded case objects; problems with the file itself go to self.problems."""
        self.problems.clear()
        json_lines = self.json_lines
        if json_lines is None:
            json_lines = looks_like_json_lines(self.path)
        if json_lines:
            yield from self.json_lines_records()
            return
        text = self.text()
        if text is None:
            return
        if not text.strip():
            self.problems.append(f"{self.label}: the file is empty: expected a case object")
            return
        yield from self.json_records(text)

    def json_records(self, text):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            self.problems.append(f"{self.label}: {describe_json_error(error)}")
            return
        if isinstance(value, dict):
            yield Record(self.label, "", value)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                yield Record(self.label, f"item {index + 1}", item)
        else:
            self.problems.append(
                f"{self.label}: the file must hold a case object or an array of case objects, "
                f"not {json_type(value)}"
            )

    def json_lines_records(self):
        """One object a line, read a line at a time so a large file never sits in memory."""
        seen_any = False
        with self.path.open("rb") as stream:
            for number, raw in enumerate(stream, start=1):
                if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as error:
                    self.problems.append(
                        f"{self.label}: line {number}: not valid UTF-8 text "
                        f"(byte 0x{raw[error.start]:02x} at column {error.start + 1})"
                    )
                    continue
                if not line.strip():
                    continue
                seen_any = True
                try:
                    value = json.loads(line.rstrip("\r\n"))
                except json.JSONDecodeError as error:
                    self.problems.append(
                        f"{self.label}: line {number}, column {error.colno}: invalid JSON: "
                        f"{error.msg}"
                    )
                    continue
                yield Record(self.label, f"line {number}", value)
        if not seen_any and not self.problems:
            self.problems.append(f"{self.label}: the file is empty: expected a case object")


def describe_json_error(error):
    return f"line {error.lineno}, column {error.colno}: invalid JSON: {error.msg}"


def json_type(value):
    if isinstance(value, bool):
        return "true or false"
    return {str: "a string", int: "a number", float: "a number", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def looks_like_json_lines(path):
    """For standard input: JSON Lines when the text is not one JSON value but its lines are."""
    try:
        json.loads(path.read_bytes().decode("utf-8-sig"))
    except UnicodeDecodeError:
        return False
    except json.JSONDecodeError as error:
        return error.msg == "Extra data"
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
