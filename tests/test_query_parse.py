"""Tests for the query language: gossamer.search.query_parse / gossamer.core.query."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from gossamer.core.query import Clause, DateRange, Query
from gossamer.search.query_parse import DEFAULT_FIELDS, QuerySyntaxError, parse_query, tokenize


def term(tok, field=None, **occ):
    return Clause("term", field, (tok,), **occ)


def phrase(*toks, field=None, **occ):
    return Clause("phrase", field, tuple(toks), **occ)


def raw(field, value, tokens=(), **occ):
    return Clause("raw", field, tuple(tokens), raw=value, **occ)


def date(start, end, **occ):
    return Clause("date", "date", date_range=DateRange(start, end), **occ)


def clauses(text, **kw):
    return list(parse_query(text, **kw).clauses)


def syntax_error(text, **kw) -> QuerySyntaxError:
    with pytest.raises(QuerySyntaxError) as info:
        parse_query(text, **kw)
    return info.value


# ----------------------------------------------------------------------------- tokenizer


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Hello World", ["hello", "world"]),
        ("foo-bar", ["foo", "bar"]),
        ("os.path.join", ["os", "path", "join"]),
        ("C++", ["c"]),
        ("snake_case x2", ["snake_case", "x2"]),
        ("U.S.A.", ["usa"]),
        ("the U.S. army", ["the", "us", "army"]),
        ("e.g. this", ["eg", "this"]),
        ("e.g", ["e", "g"]),
        ("1.2.3.", ["1", "2", "3"]),
        ("U.S.A.B", ["u", "s", "a", "b"]),
        ("xU.S.A.", ["xu", "s", "a"]),
        ("中国人", ["中", "国", "人"]),
        ("abc中文def", ["abc", "中", "文", "def"]),
        ("ひらがなカタカナ", ["ひ", "ら", "が", "な", "カ", "タ", "カ", "ナ"]),
        ("한국어 단어", ["한국어", "단어"]),
        ("हिन्दी भाषा", ["हिन्दी", "भाषा"]),
        ("Straße", ["strasse"]),
        ("ＦＵＬＬ ｗｉｄｔｈ", ["full", "width"]),
        ("cafe\u0301", ["café"]),
        ("ΣΊΣΥΦΟΣ", ["σίσυφοσ"]),
        ('!!! ... +++ "', []),
        ("", []),
    ],
)
def test_tokenize(text, tokens):
    assert tokenize(text) == tokens


def test_tokenize_idempotent_on_its_tokens():
    rng = random.Random(1234)
    alphabet = "aZß.İ-_ 9中ひ한\u0301\u093f\u0915ﬁ①ＡΣ'&\x00\ufeff\u200b"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 20)))
        for tok in tokenize(text):
            assert tokenize(tok) == [tok], (text, tok)


# ----------------------------------------------------------------------------- operators and terms


def test_bare_terms_are_should_clauses():
    q = parse_query("Bobo  bono")
    assert list(q.clauses) == [term("bobo"), term("bono")]
    assert q.clauses[0].occur == "should"
    assert q.optional == q.clauses and q.required == () and q.excluded == ()


def test_required_and_excluded():
    q = parse_query("+must -not maybe")
    assert list(q.clauses) == [term("must", required=True), term("not", excluded=True), term("maybe")]
    assert [c.occur for c in q.clauses] == ["must", "must_not", "should"]
    assert q.required == (q.clauses[0],) and q.excluded == (q.clauses[1],)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("+-a b", [term("a", excluded=True), term("b")]),
        ("-+a b", [term("a", excluded=True), term("b")]),
        ("++a", [term("a", required=True)]),
        ("- a", [term("a")]),
        ("+ a", [term("a")]),
        ("a -", [term("a")]),
        ("a +++ !! ::::", [term("a")]),
    ],
)
def test_operator_edge_cases(text, expected):
    assert clauses(text) == expected


def test_compound_terms_become_phrases():
    assert clauses("foo-bar") == [phrase("foo", "bar")]
    assert clauses("x -os.path.join") == [term("x"), phrase("os", "path", "join", excluded=True)]
    assert clauses("+C++") == [term("c", required=True)]
    assert clauses("中国") == [phrase("中", "国")]


def test_quoted_phrases():
    assert clauses('"Bobo  Bogo" -"bogo bobo"') == [phrase("bobo", "bogo"), phrase("bogo", "bobo", excluded=True)]
    assert clauses('"single"') == [term("single")]
    assert clauses('a "" "!!"') == [term("a")]
    assert clauses('foo"bar baz"') == [term("foo"), phrase("bar", "baz")]
    assert clauses('"a b"c') == [phrase("a", "b"), term("c")]


def test_whitespace_and_control_characters_separate_clauses():
    assert clauses("a\tb\nc\x00d\u3000e") == [term(t) for t in "abcde"]


# ----------------------------------------------------------------------------- fields


def test_text_fields():
    assert clauses("title:Python +anchor:docs -content:snake") == [
        term("python", "title"),
        term("docs", "anchor", required=True),
        term("snake", "content", excluded=True),
    ]
    assert clauses('title:"Hello World" anchor:foo-bar') == [
        phrase("hello", "world", field="title"),
        phrase("foo", "bar", field="anchor"),
    ]


def test_field_names_are_case_insensitive():
    assert clauses("TITLE:x Site:Example.COM") == [term("x", "title"), raw("site", "example.com")]


def test_unknown_field_is_plain_text():
    assert clauses("foo:bar") == [phrase("foo", "bar")]
    assert clauses('foo:"bar baz"') == [term("foo"), phrase("bar", "baz")]
    assert clauses("a 12:30") == [term("a"), phrase("12", "30")]


def test_empty_text_field_is_dropped():
    assert clauses("title: python") == [term("python")]
    assert clauses('title:"" x') == [term("x")]


def test_custom_field_set():
    assert clauses("tag:Foo-Bar", fields=DEFAULT_FIELDS | {"tag"}) == [phrase("foo", "bar", field="tag")]
    assert clauses("cc:BY", fields={"cc"}, raw_fields={"cc"}) == [raw("cc", "by")]
    # without "site" among the fields, site:x is plain text
    assert clauses("site:example.com", fields={"title"}) == [phrase("site", "example", "com")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("site:example.com", "example.com"),
        ("site:https://Docs.Python.org/", "docs.python.org"),
        ("site:www.Example.com", "www.example.com"),
        ("site:http://http://x.org//", "x.org"),
        ("site:example.com:8080/path/", "example.com:8080/path"),
        ('site:" Example.com "', "example.com"),
    ],
)
def test_site_values(text, value):
    assert clauses(text) == [raw("site", value)]


def test_host_type_lang_raw_values():
    assert clauses("host:HTTP://WWW.A.B/ type:Application/PDF type:html lang:EN lang:deu") == [
        raw("host", "www.a.b"),
        raw("type", "application/pdf"),
        raw("type", "html"),
        raw("lang", "en"),
        raw("lang", "deu"),
    ]


def test_url_raw_value_carries_tokens():
    assert clauses("url:HTTP://Example.com/A_b.html") == [
        raw("url", "http://example.com/a_b.html", ("http", "example", "com", "a_b", "html"))
    ]
    assert clauses('url:"Example Path" url:"x"') == [phrase("example", "path", field="url"), term("x", "url")]


def test_excluded_and_required_raw_clauses():
    assert clauses("python -site:example.com +type:pdf") == [
        term("python"),
        raw("site", "example.com", excluded=True),
        raw("type", "pdf", required=True),
    ]


def test_raw_only_query_is_accepted():
    assert clauses("site:example.com") == [raw("site", "example.com")]


# ----------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    ("value", "start", "end"),
    [
        ("20240101-20241231", dt.date(2024, 1, 1), dt.date(2024, 12, 31)),
        ("20240101-", dt.date(2024, 1, 1), None),
        ("-20240131", None, dt.date(2024, 1, 31)),
        ("20240229", dt.date(2024, 2, 29), dt.date(2024, 2, 29)),
        ("202402", dt.date(2024, 2, 1), dt.date(2024, 2, 29)),
        ("2023", dt.date(2023, 1, 1), dt.date(2023, 12, 31)),
        ("2023-202406", dt.date(2023, 1, 1), dt.date(2024, 6, 30)),
        ("20240505-20240505", dt.date(2024, 5, 5), dt.date(2024, 5, 5)),
    ],
)
def test_date_forms(value, start, end):
    assert clauses(f"x date:{value}") == [term("x"), date(start, end)]


def test_date_range_contains():
    rng = DateRange(dt.date(2024, 1, 1), dt.date(2024, 1, 31))
    assert rng.inclusive and rng.contains(dt.date(2024, 1, 1)) and rng.contains(dt.date(2024, 1, 31))
    assert not rng.contains(dt.date(2023, 12, 31)) and not rng.contains(dt.date(2024, 2, 1))
    exclusive = DateRange(dt.date(2024, 1, 1), None, inclusive=False)
    assert not exclusive.contains(dt.date(2024, 1, 1)) and exclusive.contains(dt.date(2030, 1, 1))
    assert str(rng) == "20240101-20240131" and str(exclusive) == "20240101-"


@pytest.mark.parametrize(
    ("text", "fragment", "position"),
    [
        ("x date:20241399", "invalid date", 7),
        ("x date:20240230", "invalid date", 7),
        ("x date:202413", "invalid date", 7),
        ("x date:0000", "invalid date", 7),
        ("x date:20241231-20240101", "starts after it ends", 7),
        ("x date:2024-01-01", "expects YYYYMMDD", 12),
        ("x date:yesterday", "expects YYYYMMDD", 7),
        ("x date:2024010", "expects YYYYMMDD", 7),
        ("x date:-", "at least one bound", 7),
        ("x date:\u0661\u0662\u0663\u0664", "expects YYYYMMDD", 7),
    ],
)
def test_bad_dates(text, fragment, position):
    err = syntax_error(text)
    assert fragment in err.message and err.position == position


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize("field", ["site", "type", "lang", "date", "url", "host"])
def test_empty_raw_value_is_an_error(field):
    for text in (f"x {field}:", f"x {field}: y", f'x {field}:""'):
        err = syntax_error(text)
        assert err.message == f"{field}: needs a value" and err.position == len(field) + 3


def test_site_without_host_is_an_error():
    assert syntax_error("x site:https://").message == "site: needs a value"
    assert syntax_error('x site:"a b"').message == "site: value cannot contain spaces"


@pytest.mark.parametrize("value", ["e", "engl", "e1", "en-us", "ü"])
def test_bad_lang(value):
    err = syntax_error(f"x lang:{value}")
    assert "language code" in err.message and err.position == 7


def test_unterminated_quote():
    err = syntax_error('foo "bar baz')
    assert err.message.startswith("unterminated quote") and err.position == 4
    assert str(err).endswith("(at column 5)")
    assert syntax_error('-"').position == 1
    assert syntax_error('a b"c d').position == 3


def test_too_long():
    parse_query("a" * 1024)
    err = syntax_error("a" * 1025)
    assert "too long" in err.message and err.position == 1024
    assert syntax_error("abc", max_length=2).position == 2


def test_too_many_clauses():
    assert len(parse_query(" ".join(["w"] * 64)).clauses) == 64
    err = syntax_error(" ".join(["w"] * 65))
    assert "too many clauses" in err.message and err.position == 128
    assert len(clauses("a !! b", max_clauses=2)) == 2  # dropped clauses do not count


@pytest.mark.parametrize("text", ["", "   ", "\t\n", "!!", "+++ - ::", '""', 'title:"" "!?"'])
def test_empty_query(text):
    err = syntax_error(text)
    assert err.message.startswith("empty query") and err.position is None


@pytest.mark.parametrize("text", ["-a", "-a -b", '-"a b" -site:example.com', "-date:2024 -x"])
def test_only_excluded(text):
    err = syntax_error(text)
    assert err.message == "a query needs at least one term that is not excluded" and err.position is None


def test_error_is_a_value_error():
    assert issubclass(QuerySyntaxError, ValueError)
    assert str(QuerySyntaxError("boom")) == "boom"


# ----------------------------------------------------------------------------- AST helpers


def test_positive_terms():
    q = parse_query('Python -snake "Bobo bogo" title:docs anchor:x-y content:z url:"u" site:s.com +python -"no way"')
    assert q.positive_terms() == ("python", "bobo", "bogo", "docs", "x", "y", "z")
    assert [c.kind for c in q.filters] == ["raw"]


def test_clause_invariants():
    for bad in (
        lambda: Clause("term", None, ("a", "b")),
        lambda: Clause("term", None, ()),
        lambda: Clause("phrase", None, ("a",)),
        lambda: Clause("term", None, ("",)),
        lambda: Clause("raw", "site", ()),
        lambda: Clause("date", "date"),
        lambda: Clause("term", None, ("a",), required=True, excluded=True),
        lambda: Clause("bogus", None, ("a",)),  # type: ignore[arg-type]
        lambda: DateRange(None, None),
        lambda: DateRange(dt.date(2024, 2, 1), dt.date(2024, 1, 1)),
    ):
        with pytest.raises(ValueError):
            bad()


def test_ast_is_frozen_and_hashable():
    q = parse_query("a b")
    with pytest.raises(AttributeError):
        q.clauses = ()  # type: ignore[misc]
    assert hash(q) == hash(parse_query("a   b"))


# ----------------------------------------------------------------------------- round trips


ROUND_TRIP = [
    'bobo -bono "bobo bogo" -"bogo bobo" site:example.com',
    "+python -snake type:pdf lang:en date:20240101-",
    "foo-bar U.S.A. C++ e.g os.path.join",
    'title:"Hello World" +anchor:docs -content:x url:http://a.b/c url:"a b" url:"c"',
    "site:https://Docs.Python.org/ host:WWW.Example.com date:2024 -date:202402 date:-20200101",
    "中国人 ひらがな 한국어 हिन्दी Straße",
    'foo:bar "quoted" x:"y z" 12:30',
    "tag:x title:y",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_round_trip(text):
    q = parse_query(text)
    rendered = str(q)
    assert parse_query(rendered) == q
    assert str(parse_query(rendered)) == rendered


def test_rendering_a_built_query():
    q = Query((term("a", required=True), phrase("b", "c", field="title"), raw("site", "x.org", excluded=True)))
    assert str(q) == '+a title:"b c" -site:x.org'
    assert parse_query(str(q)) == q


def test_canonical_rendering():
    q = parse_query('bobo  -bono "Bobo  Bogo" -"bogo bobo" SITE:Example.com date:2024 url:"x"')
    assert str(q) == 'bobo -bono "bobo bogo" -"bogo bobo" site:example.com date:20240101-20241231 url:"x"'
    assert str(parse_query("title:x foo-bar")) == 'title:x "foo bar"'


# ----------------------------------------------------------------------------- fuzz

_PIECES = [
    "a", "Foo", "bar", "+", "-", "+-", '"', '""', ":", "::::", "site:", "date:", "url:", "lang:", "type:",
    "title:", "host:", "content:", "anchor:", "foo:", "20240101", "-2024", "2024-", "en", "x.y", "U.S.A.",
    "http://", "/", " ", "  ", "\t", "\n", "\x00", "\x1f", "\x7f", "\u200b", "\ufeff", "\u3000", "中", "ひ",
    "\u0301", "\u093f", "ß", "İ", "ﬁ", "①", "\ud800", "\U0001f600", "'", "\\", "(", ")", "*", "?", "!", "~",
]  # fmt: skip


def _check(text: str, **kw: object) -> None:
    try:
        q = parse_query(text, **kw)  # type: ignore[arg-type]
    except QuerySyntaxError as err:
        assert err.position is None or 0 <= err.position <= len(text)
        assert str(err)
        return
    assert q.clauses and not all(c.excluded for c in q.clauses)
    again = parse_query(str(q))
    assert again == q, (text, str(q))


def test_fuzz_structured_garbage():
    rng = random.Random(20240601)
    for _ in range(4000):
        _check("".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 12))))


def test_fuzz_random_unicode():
    rng = random.Random(7)
    for _ in range(2000):
        n = rng.randint(0, 40)
        pick = rng.random()
        if pick < 0.3:
            text = "".join(chr(rng.randint(0, 0x7F)) for _ in range(n))
        elif pick < 0.6:
            text = "".join(chr(rng.randint(0, 0xFFFF)) for _ in range(n))
        else:
            text = "".join(chr(rng.randint(0, 0x10FFFF)) for _ in range(n))
        _check(text)


@pytest.mark.parametrize(
    "text",
    ['"', '-"', "+-a", "site:", "date:", "::::", ":", "a:", "+", "-", "\x00", "\ud800", "+\"\"", "site:\"",
     "date:\"2024\"", "a" * 5000, " " * 5000, '"' * 1000, "-" * 1000, "a " * 600, "site:" * 200],
)  # fmt: skip
def test_fuzz_specific(text):
    _check(text)


def test_fuzz_small_limits():
    rng = random.Random(99)
    for _ in range(500):
        text = " ".join(rng.choice(["a", "-b", "c-d", '"e f"', "!!"]) for _ in range(rng.randint(0, 8)))
        _check(text, max_length=rng.randint(0, 30), max_clauses=rng.randint(0, 4))


def test_plain_tokens():
    assert parse_query('os.path "deep copy" +list').plain_tokens() == ("os", "path", "deep", "copy", "list")
    assert parse_query("deep copy +list").plain_tokens(allow_required=False) is None
    for text in ("copy -deep", "title:copy", "site:a.test copy", "copy date:20200101-20201231"):
        assert parse_query(text).plain_tokens() is None, text
