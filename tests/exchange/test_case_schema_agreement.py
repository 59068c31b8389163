"""The schema and the validator agree on cases neither has seen: random changes of a good
case (a field dropped, a value of another type, a bad date, an unknown key, a string too
long, a bad id, an item repeated, ...). Whatever the validator accepts the schema accepts;
whatever the schema accepts the validator accepts, unless it refuses it only for a rule
outside the schema."""

import copy
import datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from cases.exchange.schema import schema_errors
from cases.exchange.validation import validate_case
from cases.rules import shown
from tests.exchange.schema_cases import SEED_CASE, full_case, outside_the_schema

BASES = {"seed": SEED_CASE, "full": full_case()}

TRICKY_STRINGS = (
    # ids and slugs
    "IL-0585",
    "IL-1001",
    "IL-585",
    "IL-0585\n",
    "IL-١٢٣٤",
    "IL-" + "1" * 17,
    "IL-" + "1" * 18,
    "dns",
    "dns\n",
    "DNS",
    "a--b",
    "-a",
    "a" * 50,
    "a" * 51,
    "a" * 100,
    "a" * 101,
    # enumerations
    "occurred",
    "published",
    "unknown",
    "critical",
    "Critical",
    # dates, times and durations
    "2019-08-08",
    "2019-8-8",
    "2000-02-29",
    "1900-02-29",
    "2100-02-28",
    "1899-12-31",
    "1900-01-01",
    "2019-W32-4",
    (datetime.date.today() + datetime.timedelta(days=9)).isoformat(),
    "2024-05-01T09:30:00Z",
    "2024-05-01 09:30+09",
    "2024-05-01T09:30:00,5+0900",
    "2024-05-01T09:30:00",
    "2024-05-01T24:00Z",
    "2024-02-30T10:00Z",
    "20240501T093000Z",
    "9999-12-31T23:59:59Z",
    "PT3H15M",
    "P2DT4H",
    "P1W",
    "PT0.5S",
    "P1DT",
    "-PT1H",
    "P1Y",
    "P7300D",
    "P7301D",
    "P1043W",
    # links
    "https://example.org/a",
    "HTTP://EXAMPLE.ORG",
    "https://example",
    "https://localhost:8000/x",
    "https://[::1]/x",
    "https://example.org/a b",
    "https://example.org/\x7f",
    "https://example.org/\u3000",
    "javascript:alert(1)",
    "ftp://example.org",
    "http://a",
    # text
    "",
    " ",
    "\u3000",
    "x",
    "가",
    "a\x00b",
    "half \ud800",
    "line\nbreak",
    # licences
    "CC-BY-SA-4.0",
    "LicenseRef-catalogue.1",
    "GPL-2.0+",
    "CC BY 4.0",
    "MIT OR Apache-2.0",
    "-MIT",
)
LENGTHS = (20, 21, 40, 41, 50, 51, 100, 101, 200, 201, 500, 501, 1000, 1001, 5000, 5001)
KEYS = ("en", "ko", "fr", "url", "kind", "archived", "scope", "written_by", "licence", "cost")

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.sampled_from(TRICKY_STRINGS),
    st.text(max_size=12),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
    ),
    max_leaves=6,
)
long_strings = st.builds(
    lambda prefix, length: (prefix + "a" * length)[:length],
    st.sampled_from(("", "https://example.org/", "IL-", "x ")),
    st.sampled_from(LENGTHS),
)


def paths_of(value, path=()):
    """Every path to a value inside a case, the case itself first."""
    yield path
    if isinstance(value, dict):
        children = value.items()
    elif isinstance(value, list):
        children = enumerate(value)
    else:
        children = ()
    for key, child in children:
        yield from paths_of(child, (*path, key))


def at(case, path):
    for step in path:
        case = case[step]
    return case


def holder(case, path):
    return at(case, path[:-1])


@st.composite
def mutations(draw, case):
    """Change `case` in place once; say what was done (for a failure's report)."""
    paths = [path for path in paths_of(case) if path]
    path = draw(st.sampled_from(paths))
    kind = draw(st.sampled_from(("replace", "drop", "add key", "too long", "append")))
    parent = holder(case, path)
    if kind == "drop" and isinstance(parent, dict):
        del parent[path[-1]]
        return f"drop {path}"
    if kind == "add key":
        objects = [p for p in paths_of(case) if isinstance(at(case, p), dict)]
        path = draw(st.sampled_from(objects))
        key, value = draw(st.sampled_from(KEYS)), draw(values)
        at(case, path)[key] = value
        return f"set {(*path, key)} to {shown(value)}"
    if kind == "append":
        lists = [p for p in paths_of(case) if isinstance(at(case, p), list)]
        path = draw(st.sampled_from(lists))
        target = at(case, path)
        value = draw(st.one_of(values, st.sampled_from(target))) if target else draw(values)
        target.append(value)
        return f"append {shown(value)} to {path}"
    value = draw(long_strings if kind == "too long" else values)
    parent[path[-1]] = value
    return f"set {path} to {shown(value)}"


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_schema_and_the_validator_agree_on_changed_cases(data):
    case = copy.deepcopy(BASES[data.draw(st.sampled_from(sorted(BASES)), label="base")])
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        data.draw(mutations(case), label="change")
    errors = schema_errors(case)
    normal, problems = validate_case(case)
    if normal is not None:
        assert errors == [], "the validator accepts what the schema refuses"
    elif not errors:
        unsaid = [f"{p.path}: {p.message}" for p in problems if not outside_the_schema(p, case)]
        assert unsaid == [], "the schema accepts what the validator refuses"


# --- the spellings, one field at a time ---------------------------------------------------


# The format's spellings, about half of them with one part wrong; never after 2019, so that
# the future (outside the schema) does not come into it.
def one_part_wrong(good, wrongs):
    return st.builds(
        lambda value, wrong: wrong(value) if wrong else value,
        good,
        st.one_of(st.none(), st.sampled_from(wrongs)),
    )


DATE_WRONGS = (
    lambda v: v + "\n",
    lambda v: v + " ",
    lambda v: v.replace("-0", "-"),
    lambda v: v.replace("-", ""),
    lambda v: "1899" + v[4:],
    lambda v: v[:5] + "13" + v[7:],
    lambda v: v[:8] + "00" + v[10:],
    lambda v: v[:8] + "31" + v[10:],
    lambda v: v[:5] + "02-29" + v[10:],  # a leap year, or not
    lambda v: v[:5] + "02-30" + v[10:],
    lambda v: "1900-02-29" + v[10:],
    lambda v: "2000-02-29" + v[10:],
    lambda v: "٢" + v[1:],
)
EARLIEST, LATEST = datetime.datetime(1900, 1, 2), datetime.datetime(2019, 12, 31)
dates = one_part_wrong(
    st.dates(EARLIEST.date(), LATEST.date()).map(datetime.date.isoformat), DATE_WRONGS
)
zones = st.sampled_from(("Z", "+09:00", "+0900", "+09", "-23:59", "-00:00"))
spelled_times = st.builds(
    lambda moment, separator, precision, zone: moment.isoformat(separator, precision) + zone,
    st.datetimes(EARLIEST, LATEST),
    st.sampled_from(("T", "T", " ")),
    st.sampled_from(("minutes", "seconds", "milliseconds", "microseconds")),
    zones,
)
dates_and_times = one_part_wrong(
    spelled_times,
    DATE_WRONGS
    + (
        lambda v: v.replace("T", "t"),
        lambda v: v.replace("Z", "z"),
        lambda v: v.rstrip("Z").split("+")[0],  # no zone
        lambda v: v[:11] + "24" + v[13:],
        lambda v: v[:14] + "60" + v[16:],
        lambda v: v[:16] + ":60Z",
        lambda v: v[:16] + ".Z",
        lambda v: v[:16] + ":00,5+09",
        lambda v: v[:16] + ":00.1234567-05",
        lambda v: v[:13] + "Z",  # the hour alone
        lambda v: v[:16] + "+24:00",
        lambda v: v[:16] + "+09:60",
        lambda v: v[:16] + "+9",
        lambda v: v.replace("-", "").replace(":", ""),
    ),
)


def amounts(most):
    whole = st.integers(0, most).map(str)
    fraction = st.builds("{}{}{}".format, st.integers(0, 9), st.sampled_from(".,"), st.integers())
    return st.one_of(whole, whole, fraction)


def designated(letter, most=999):
    return st.one_of(st.just(""), amounts(most).map(lambda amount: amount + letter))


# At most 99 weeks and 999 days: within 20 years (a longer one is outside the schema).
durations = st.builds(
    lambda sign, weeks, days, hours, minutes, seconds, bare_t, tail: (
        f"{sign}P{weeks}{days}"
        + (f"T{hours}{minutes}{seconds}" if hours or minutes or seconds or bare_t else "")
        + tail
    ),
    st.sampled_from(("",) * 6 + ("-", "+")),
    designated("W", most=99),
    designated("D"),
    designated("H"),
    designated("M"),
    designated("S"),
    st.sampled_from((False,) * 9 + (True,)),
    st.sampled_from(("",) * 12 + ("\n", "Y", "M", "1")),
)


def agree(path, value):
    case = full_case()
    holder(case, path)[path[-1]] = value
    normal, _problems = validate_case(case)
    assert (normal is not None) == (schema_errors(case) == []), value


@settings(max_examples=300, deadline=None)
@given(dates)
def test_dates_read_alike(value):
    agree(("date",), value)


@settings(max_examples=300, deadline=None)
@given(dates_and_times)
def test_dates_and_times_read_alike(value):
    agree(("review", "reviewed_at"), value)


@settings(max_examples=300, deadline=None)
@given(durations)
def test_durations_read_alike(value):
    agree(("timeline", "detected_after"), value)
