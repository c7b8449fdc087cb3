import pytest

from tl import parser


@pytest.mark.parametrize("layer", parser.shipped_layers())
def test_every_shipped_schema_parses(layer):
    s = parser.api_schema(layer)
    assert len(s.constructors) > 900 and len(s.functions) > 450
    names = [c.name for c in s.all()]
    assert len(names) == len(set(names))
    user = next(c for c in s.constructors if c.name == "user")
    self_flag = next(p for p in user.params if p.name == "self")
    assert (self_flag.flag_field, self_flag.flag_bit, self_flag.is_true_flag) == ("flags", 10, True)


def test_shipped_layers():
    layers = parser.shipped_layers()
    assert len(layers) == 53 and layers[0] == 150 and layers[-1] == 229
    assert {158, 181, 198, 201, 207, 224, 225, 227, 228} <= set(layers)


def test_mtproto_schema():
    s = parser.mtproto_schema()
    names = {c.name for c in s.all()}
    assert {"resPQ", "req_pq_multi", "msgs_ack", "future_salts", "ping_delay_disconnect"} <= names
    salts = next(c for c in s.constructors if c.name == "future_salts").params[2].type
    assert (salts.name, salts.bare, salts.item.name, salts.item.bare) == ("vector", True, "future_salt", True)


def test_generic_query():
    c = parser.parse_text(
        "---functions---\ninvokeWithLayer#da9b0d0d {X:Type} layer:int query:!X = X;"
    ).functions[0]
    assert c.generic == "X" and c.params[1].type.generic and c.id == 0xDA9B0D0D


@pytest.mark.parametrize(
    "line, msg",
    [
        ("foo#1 a:flags.0?int = Foo;", "undeclared flags"),
        ("foo#1 a:Vec<int = Foo;", "unknown type syntax"),
        ("foo#1 a = Foo;", "bad parameter"),
        ("foo#1 x:!X = X;", "without"),
        ("foo#1 a:int = Foo", "not terminated"),
        ("---weird---", "unknown section"),
    ],
)
def test_unknown_syntax_names_file_and_line(line, msg):
    with pytest.raises(parser.SchemaError, match=rf"x\.tl:2: .*{msg}|x\.tl:2: {msg}"):
        parser.parse_text("// comment\n" + line + "\n", "x.tl")


def test_declaration_without_id_gets_the_crc32_id():
    c = parser.parse_text(
        "resPQ nonce:int128 server_nonce:int128 pq:string server_public_key_fingerprints:Vector<long> = ResPQ;"
    ).constructors[0]
    assert c.id == 0x05162463 and not c.explicit_id
